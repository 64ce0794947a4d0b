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
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useQueueClear } from '../hooks/use-queue-clear.js';
import { useQueueMove } from '../hooks/use-queue-move.js';
import { isEmptyMessage } from '../model/composer-draft.js';
import { movedOrder, type MoveDirection } from '../model/queue-controls.js';
import type { QueueItemView } from '../model/types.js';
import { QueueClear, QueueClearOutcome, QueueMoveButtons } from './queue-controls.js';
import { UserText } from './user-text.js';

type ItemError = 'remove' | 'save';

/** Text handed to the composer; a new object each time, so the same text twice is two hand-overs. */
export interface OfferedText {
  text: string;
}

/** The edit under way: which message, the text it was made from, and what the person has typed so far. */
interface Edit {
  itemId: string;
  base: string;
  text: string;
}

export function SessionQueue({
  sessionId,
  revision,
  onEditLost,
}: {
  sessionId: string;
  revision: number;
  onEditLost: (text: string) => void;
}) {
  const { t } = useTranslation();
  const { api } = useServices();
  const [items, setItems] = useState<QueueItemView[]>([]);
  const [edit, setEdit] = useState<Edit>();
  const [editLost, setEditLost] = useState(false);
  // The latest edit and hand-over for `load`, which outlives the render that made it.
  const editRef = useRef<Edit | undefined>(undefined);
  editRef.current = edit;
  const handOver = useRef(onEditLost);
  handOver.current = onEditLost;

  const loseEdit = useCallback((lost: Edit) => {
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
    const current = editRef.current;
    if (current && !result.value.items.some((item) => item.id === current.itemId)) {
      loseEdit(current);
    }
    return result.value.items;
  }, [api, loseEdit, sessionId]);

  useEffect(() => {
    void load();
  }, [load, revision]);

  const list = useRef<HTMLUListElement>(null);
  const { move, failure: moveFailure } = useQueueMove(sessionId, items, load, list);
  const clearing = useQueueClear(sessionId, items, load);
  const clearTold = clearing.failure !== undefined || clearing.misses.length > 0;

  if (items.length === 0 && !editLost && !clearTold) return null;
  return (
    <section className="queue" aria-label={t('queue.title')} data-testid="queue">
      <div className="queue-header">
        <h2 className="section-title">{t('queue.title')}</h2>
        {items.length > 0 ? <QueueClear items={items} clearing={clearing} /> : null}
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
              setEdit(next);
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
  edit: Edit | undefined;
  onEdit: (edit: Edit | undefined) => void;
  onEditLost: (edit: Edit) => void;
}) {
  const { t } = useTranslation();
  const { api } = useServices();
  const { sessionId, item, reload, edit, onEdit } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ItemError | undefined>();

  const remove = async () => {
    setBusy(true);
    setError(undefined);
    const result = await api.removeQueued(sessionId, item.id);
    setBusy(false);
    // 404: it already started or someone else removed it; the reload shows which.
    if (!result.ok && !(result.kind === 'http' && result.status === 404)) setError('remove');
    await reload();
  };

  const save = async (saving: Edit) => {
    setError(undefined);
    const result = await api.editQueued(sessionId, item.id, saving.text, saving.base);
    if (result.ok) onEdit(undefined);
    // Gone from the queue (sent or removed): the edit must not vanish with it.
    else if (result.kind === 'http' && result.status === 404) props.onEditLost(saving);
    else setError('save');
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
          text={edit.text}
          onChange={(text) => {
            onEdit({ ...edit, text });
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
                  onEdit({ itemId: item.id, base: item.text, text: item.text });
                }}
              >
                {t('userInput.queue.edit')}
              </button>
            ) : null}
            <button
              type="button"
              className="button"
              data-testid="queue-remove"
              disabled={busy}
              onClick={() => void remove()}
            >
              {t('queue.remove')}
            </button>
          </span>
        </div>
      )}
      {error !== undefined ? (
        <p className="error queue-error" role="alert" data-testid="queue-error">
          {t(error === 'remove' ? 'userInput.queue.removeFailed' : 'userInput.queue.saveFailed')}
        </p>
      ) : null}
    </li>
  );
}

function QueueEditor(props: {
  text: string;
  onChange: (text: string) => void;
  save: () => Promise<void>;
  cancel: () => void;
}) {
  const { t } = useTranslation();
  const [saving, setSaving] = useState(false);

  const save = async () => {
    // Saved exactly as typed, as the composer sends it.
    if (isEmptyMessage(props.text) || saving) return;
    setSaving(true);
    try {
      await props.save();
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="queue-editor"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <textarea
        className="composer-input"
        data-testid="queue-edit-input"
        aria-label={t('userInput.queue.editLabel')}
        value={props.text}
        rows={2}
        onChange={(event) => {
          props.onChange(event.target.value);
        }}
      />
      <span className="queue-actions">
        <button
          type="submit"
          className="button button-primary"
          data-testid="queue-save"
          disabled={saving || isEmptyMessage(props.text)}
        >
          {t('userInput.queue.save')}
        </button>
        <button type="button" className="button" disabled={saving} onClick={props.cancel}>
          {t('userInput.queue.cancel')}
        </button>
      </span>
    </form>
  );
}
