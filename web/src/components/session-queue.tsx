/**
 * The session queue (DESIGN §7): people's queued messages, editable and
 * removable, and follow-ups the server owns for an answered action, marked
 * with a chip, removable but never editable. People's messages move up and
 * down; Clear empties the queue (`queue-controls.tsx`). The server decides
 * what is queued; this lists it again whenever the session's `revision`
 * moves: any session change, `queue.changed` among them (a message queued, edited,
 * reordered or removed by anyone, or taken when its turn starts).
 *
 * An edit under way belongs to the list, not to its row: when its message
 * leaves the queue (sent, or removed by someone) before the edit is saved,
 * the person is told and the typed text goes to the composer (`onEditLost`).
 * When the message is edited elsewhere meanwhile (another tab or window), the
 * editor says so beside the new text and the person chooses which to keep
 * (`model/queue-edit.ts`); the server refuses a save made from the old text.
 */
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useQueueClear } from '../hooks/use-queue-clear.js';
import { useQueueMove } from '../hooks/use-queue-move.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useRefocusAfterRemoval } from '../hooks/use-refocus-after-removal.js';
import { movedOrder, type MoveDirection } from '../model/queue-controls.js';
import {
  currentTextOf,
  keepTyped,
  observed,
  refusedAsChanged,
  startEdit,
  takeCurrent,
  typed,
  type QueueEdit,
} from '../model/queue-edit.js';
import type { QueueItemView } from '../model/types.js';
import { messageProblem, type MessageProblem } from '../model/composer-draft.js';
import { MAX_MESSAGE_CHARS } from '../../../src/wire/limits.js';
import { QueueClear, QueueClearOutcome, QueueMoveButtons } from './queue-controls.js';
import { QueueEditor } from './queue-editor.js';
import { UserText } from './user-text.js';

/** `too_long`, `blank`: the edit was not sent, since the server would refuse its text. */
type ItemError = 'remove' | 'save' | MessageProblem;

/** Text handed to the composer; a new object each time, so the same text twice is two hand-overs. */
export interface OfferedText {
  text: string;
}

export function SessionQueue({
  sessionId,
  revision,
  onEditLost,
  onListed,
  afterLast,
}: {
  sessionId: string;
  revision: number;
  onEditLost: (text: string) => void;
  /** Where the focus goes once the last message it had is removed (the queue goes with it). */
  afterLast: RefObject<HTMLElement | null>;
  /** The IDs of the items each read of the queue lists. */
  onListed?: (ids: readonly string[]) => void;
}) {
  const { t } = useTranslation();
  const { api } = useServices();
  const [items, setItems] = useState<QueueItemView[]>([]);
  const [edit, setEdit] = useState<QueueEdit>();
  const [editLost, setEditLost] = useState(false);
  // The latest edit and hand-over for `load`, which outlives the render that made it.
  const editRef = useRef<QueueEdit | undefined>(undefined);
  editRef.current = edit;
  // Kept in step with the ref, so a read or a refusal between renders builds on the latest edit.
  const updateEdit = useCallback((next: QueueEdit | undefined) => {
    editRef.current = next;
    setEdit(next);
  }, []);
  const handOver = useRef(onEditLost);
  handOver.current = onEditLost;
  const listed = useRef(onListed);
  listed.current = onListed;

  const loseEdit = useCallback((lost: QueueEdit) => {
    editRef.current = undefined;
    setEdit(undefined);
    setEditLost(true);
    handOver.current(lost.text);
  }, []);

  // Reads overlap when changes come quickly; only the latest may set the list, or a slow
  // reply from before a change would bring back what the queue no longer holds.
  const reads = useRef(0);
  const load = useCallback(async () => {
    const read = ++reads.current;
    const result = await api.queue(sessionId);
    if (!result.ok) return undefined;
    if (read !== reads.current) return result.value.items;
    setItems(result.value.items);
    listed.current?.(result.value.items.map((item) => item.id));
    const current = editRef.current;
    if (current) {
      const edited = result.value.items.find((item) => item.id === current.itemId);
      if (!edited) loseEdit(current);
      else {
        // Read while this edit is open: the message may read otherwise now.
        const next = observed(current, edited.text);
        if (next !== current) updateEdit(next);
      }
    }
    return result.value.items;
  }, [api, loseEdit, sessionId, updateEdit]);

  useEffect(() => {
    void load();
  }, [load, revision]);

  const list = useRef<HTMLUListElement>(null);
  // A removed row takes its buttons along: the focus goes to the row now where it was. A clear's
  // confirmation goes once it is answered: the focus goes to the first row left, or past the queue
  // (a clear that failed gives it back to Clear instead).
  const refocus = useRefocusAfterRemoval(list, '[data-testid="queue-item"]', afterLast, items);
  const { move, failure: moveFailure } = useQueueMove(sessionId, items, load, list);
  const clearing = useQueueClear(sessionId, items, load);
  const clearTold = clearing.failure !== undefined || clearing.misses.length > 0;

  if (items.length === 0 && !editLost && !clearTold) return null;
  return (
    <section className="queue" aria-label={t('queue.title')} data-testid="queue">
      <div className="queue-header">
        <h2 className="section-title">{t('queue.title')}</h2>
        {items.length > 0 ? (
          <QueueClear
            items={items}
            clearing={clearing}
            onAnswered={() => {
              refocus({ index: 0, stayed: false });
            }}
          />
        ) : null}
      </div>
      <QueueClearOutcome clearing={clearing} />
      {moveFailure ? (
        <p className="error queue-error" role="alert" data-testid="queue-move-error">
          {t(`queue.moveFailed.${moveFailure}`)}
        </p>
      ) : null}
      {editLost ? (
        <p className="error queue-error" role="alert" data-testid="queue-edit-lost">
          {t('userInput.queue.editLost')}
        </p>
      ) : null}
      <ul ref={list}>
        {items.map((item) => (
          <QueueRow
            key={item.id}
            sessionId={sessionId}
            item={item}
            reload={load}
            canMove={(direction) => movedOrder(items, item.id, direction) !== undefined}
            onMove={(direction) => void move(item.id, direction)}
            edit={edit?.itemId === item.id ? edit : undefined}
            onEdit={(next) => {
              if (next) setEditLost(false);
              updateEdit(next);
            }}
            onType={(text) => {
              // From the latest edit, so a change a read just brought in stays to be chosen on.
              const open = editRef.current;
              if (open?.itemId === item.id) updateEdit(typed(open, text));
            }}
            onRefused={(current) => {
              const open = editRef.current;
              if (open?.itemId === item.id) updateEdit(refusedAsChanged(open, current));
            }}
            onEditLost={loseEdit}
          />
        ))}
      </ul>
    </section>
  );
}

function QueueRow(props: {
  sessionId: string;
  item: QueueItemView;
  reload: () => Promise<unknown>;
  canMove: (direction: MoveDirection) => boolean;
  onMove: (direction: MoveDirection) => void;
  /** Set while this row's message is being edited. */
  edit: QueueEdit | undefined;
  onEdit: (edit: QueueEdit | undefined) => void;
  onType: (text: string) => void;
  /** The server refused the save: the message reads `current` now. */
  onRefused: (current: string) => void;
  onEditLost: (edit: QueueEdit) => void;
}) {
  const { t } = useTranslation();
  const { api } = useServices();
  const { sessionId, item, reload, edit, onEdit } = props;
  const { busy, run } = useBusyAction();
  const [error, setError] = useState<ItemError | undefined>();

  const remove = async () => {
    const result = await run(() => {
      setError(undefined);
      return api.removeQueued(sessionId, item.id);
    });
    // A press while one was in flight: that one reloads.
    if (result === undefined) return;
    // 404: it already started or someone else removed it; the reload shows which.
    if (!result.ok && !(result.kind === 'http' && result.status === 404)) setError('remove');
    await reload();
  };

  const save = async (saving: QueueEdit) => {
    setError(undefined);
    const problem = messageProblem(saving.text);
    if (problem !== undefined) {
      setError(problem);
      return;
    }
    const result = await api.editQueued(sessionId, item.id, saving.text, saving.base);
    if (result.ok) onEdit(undefined);
    // Gone from the queue (sent or removed): the edit must not vanish with it.
    else if (result.kind === 'http' && result.status === 404) props.onEditLost(saving);
    // Edited elsewhere since this edit began: both texts stay for the person to choose.
    else if (result.kind === 'http' && result.code === 'queue_item_changed') {
      props.onRefused(currentTextOf(result.details) ?? item.text);
    } else setError('save');
    await reload();
  };

  return (
    <li
      className="queue-item"
      data-testid="queue-item"
      data-owner={item.owner}
      data-item-id={item.id}
    >
      {edit && item.owner === 'user' ? (
        <QueueEditor
          edit={edit}
          onChange={props.onType}
          onChoose={(choice) => {
            onEdit(choice === 'current' ? takeCurrent(edit) : keepTyped(edit));
          }}
          save={() => save(edit)}
          cancel={() => {
            setError(undefined);
            onEdit(undefined);
          }}
        />
      ) : (
        <div className="queue-row">
          {item.owner === 'machine' ? (
            <span className="chip chip-follow-up" title={t('userInput.queue.followUpHint')}>
              {t('queue.followUp')}
            </span>
          ) : null}
          <span className="queue-text">
            <UserText text={item.text} />
          </span>
          <span className="queue-actions">
            {item.owner === 'user' ? (
              <QueueMoveButtons
                text={item.text}
                canMoveUp={props.canMove('up')}
                canMoveDown={props.canMove('down')}
                onMove={props.onMove}
              />
            ) : null}
            {item.owner === 'user' ? (
              <button
                type="button"
                className="button"
                data-testid="queue-edit"
                disabled={busy}
                onClick={() => {
                  setError(undefined);
                  onEdit(startEdit(item));
                }}
              >
                {t('userInput.queue.edit')}
              </button>
            ) : null}
            <button
              type="button"
              className="button"
              data-testid="queue-remove"
              // Not `disabled`: that would drop the keyboard's focus on it to the page.
              aria-disabled={busy}
              onClick={() => void remove()}
            >
              {t('queue.remove')}
            </button>
          </span>
        </div>
      )}
      {error !== undefined ? (
        <p className="error queue-error" role="alert" data-testid="queue-error">
          {error === 'remove' || error === 'save'
            ? t(error === 'remove' ? 'userInput.queue.removeFailed' : 'userInput.queue.saveFailed')
            : t('userInput.queue.saveInvalid', {
                problem:
                  error === 'too_long'
                    ? t('composer.tooLong', { max: MAX_MESSAGE_CHARS })
                    : t('composer.blank'),
              })}
        </p>
      ) : null}
    </li>
  );
}
