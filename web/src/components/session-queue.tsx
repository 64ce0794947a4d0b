/**
 * The session queue (DESIGN §7): people's queued messages, editable and
 * removable, and follow-ups the server owns for an answered action, marked
 * with a chip, removable but never editable. The server decides what is
 * queued; this lists it again whenever the session's `revision` moves: any
 * session change, `queue.changed` among them (a message queued, edited,
 * reordered or removed by anyone, or taken when its turn starts).
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { isEmptyMessage } from '../model/composer-draft.js';
import type { QueueItemView, UserQueueItem } from '../model/types.js';

type ItemError = 'remove' | 'save';

export function SessionQueue({ sessionId, revision }: { sessionId: string; revision: number }) {
  const { t } = useTranslation();
  const { api } = useServices();
  const [items, setItems] = useState<QueueItemView[]>([]);

  const load = useCallback(async () => {
    const result = await api.queue(sessionId);
    if (result.ok) setItems(result.value.items);
  }, [api, sessionId]);

  useEffect(() => {
    void load();
  }, [load, revision]);

  if (items.length === 0) return null;
  return (
    <section className="queue" aria-label={t('queue.title')} data-testid="queue">
      <h2 className="section-title">{t('queue.title')}</h2>
      <ul>
        {items.map((item) => (
          <QueueRow key={item.id} sessionId={sessionId} item={item} reload={load} />
        ))}
      </ul>
    </section>
  );
}

function QueueRow(props: { sessionId: string; item: QueueItemView; reload: () => Promise<void> }) {
  const { t } = useTranslation();
  const { api } = useServices();
  const { sessionId, item, reload } = props;
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
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

  return (
    <li
      className="queue-item"
      data-testid="queue-item"
      data-owner={item.owner}
      data-item-id={item.id}
    >
      {editing && item.owner === 'user' ? (
        <QueueEditor
          sessionId={sessionId}
          item={item}
          done={async (saved) => {
            setEditing(false);
            setError(saved ? undefined : 'save');
            await reload();
          }}
        />
      ) : (
        <div className="queue-row">
          {item.owner === 'machine' ? (
            <span className="chip chip-follow-up" title={t('userInput.queue.followUpHint')}>
              {t('queue.followUp')}
            </span>
          ) : null}
          <span className="queue-text">{item.text}</span>
          <span className="queue-actions">
            {item.owner === 'user' ? (
              <button
                type="button"
                className="button"
                data-testid="queue-edit"
                disabled={busy}
                onClick={() => {
                  setError(undefined);
                  setEditing(true);
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
  sessionId: string;
  item: UserQueueItem;
  done: (saved: boolean) => Promise<void>;
}) {
  const { t } = useTranslation();
  const { api } = useServices();
  const [text, setText] = useState(props.item.text);
  const [saving, setSaving] = useState(false);

  const save = async () => {
    // Saved exactly as typed, as the composer sends it.
    if (isEmptyMessage(text) || saving) return;
    setSaving(true);
    const result = await api.editQueued(props.sessionId, props.item.id, text);
    setSaving(false);
    await props.done(result.ok);
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
        value={text}
        rows={2}
        onChange={(event) => {
          setText(event.target.value);
        }}
      />
      <span className="queue-actions">
        <button
          type="submit"
          className="button button-primary"
          data-testid="queue-save"
          disabled={saving || isEmptyMessage(text)}
        >
          {t('userInput.queue.save')}
        </button>
        <button
          type="button"
          className="button"
          disabled={saving}
          onClick={() => void props.done(true)}
        >
          {t('userInput.queue.cancel')}
        </button>
      </span>
    </form>
  );
}
