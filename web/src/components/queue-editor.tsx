/**
 * The editor of one queued message (`session-queue.tsx` owns the edit). It
 * saves exactly what was typed, and while the message reads otherwise than
 * when the edit began (edited in another tab or window) it shows the new
 * text and holds Save until the person chooses: take it, or keep theirs.
 */
import { useTranslation } from 'react-i18next';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { isEmptyMessage } from '../model/composer-draft.js';
import type { QueueEdit } from '../model/queue-edit.js';
import { UserText } from './user-text.js';

export function QueueEditor(props: {
  edit: QueueEdit;
  onChange: (text: string) => void;
  onChoose: (choice: 'current' | 'typed') => void;
  save: () => Promise<void>;
  cancel: () => void;
}) {
  const { t } = useTranslation();
  const { busy: saving, run } = useBusyAction();
  const { text, changed } = props.edit;

  const save = async () => {
    // Saved exactly as typed, as the composer sends it; not while a change elsewhere awaits a choice.
    if (isEmptyMessage(text) || changed) return;
    await run(props.save);
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
          props.onChange(event.target.value);
        }}
      />
      {changed ? (
        <QueueEditChanged changed={changed} onChoose={props.onChoose} disabled={saving} />
      ) : null}
      <span className="queue-actions">
        <button
          type="submit"
          className="button button-primary"
          data-testid="queue-save"
          // Not `disabled` while saving: that would drop the keyboard's focus on it to the page.
          aria-disabled={saving}
          disabled={!saving && (changed !== undefined || isEmptyMessage(text))}
        >
          {t('userInput.queue.save')}
        </button>
        <button
          type="button"
          className="button"
          aria-disabled={saving}
          onClick={() => {
            if (!saving) props.cancel();
          }}
        >
          {t('userInput.queue.cancel')}
        </button>
      </span>
    </form>
  );
}

/** The message was edited elsewhere while this editor was open: its new text, and the choice. */
function QueueEditChanged(props: {
  changed: NonNullable<QueueEdit['changed']>;
  onChoose: (choice: 'current' | 'typed') => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  return (
    <div className="queue-edit-changed" role="alert" data-testid="queue-edit-changed">
      <p className="error queue-error">
        {t(
          props.changed.refused
            ? 'userInput.queue.saveRefusedChanged'
            : 'userInput.queue.changedElsewhere',
        )}
      </p>
      <p className="queue-edit-current" data-testid="queue-edit-current">
        <UserText text={props.changed.current} />
      </p>
      <span className="queue-actions">
        <button
          type="button"
          className="button"
          data-testid="queue-edit-take-current"
          disabled={props.disabled}
          onClick={() => {
            props.onChoose('current');
          }}
        >
          {t('userInput.queue.takeCurrent')}
        </button>
        <button
          type="button"
          className="button"
          data-testid="queue-edit-keep-typed"
          disabled={props.disabled}
          onClick={() => {
            props.onChoose('typed');
          }}
        >
          {t('userInput.queue.keepTyped')}
        </button>
      </span>
    </div>
  );
}
