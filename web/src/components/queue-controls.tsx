/**
 * The session queue's controls beyond one message's Edit and Remove
 * (DESIGN §7): Clear, behind an in-page confirmation, and each person's
 * message's Move up and Move down. Follow-ups run after people's messages
 * and never move.
 *
 * Clear is the server's: it removes people's messages and the due follow-ups
 * alike. A follow-up removed is not sent for the person; their answer to its
 * action stands. The confirmation counts what goes and follows the list as
 * others change it; it opens on Cancel, the safe choice, and Cancel or
 * Escape hands focus back to Clear.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import {
  clearFailureOf,
  clearSummaryOf,
  namePreview,
  type MoveDirection,
  type QueueFailure,
} from '../model/queue-controls.js';
import type { QueueItemView } from '../model/types.js';

export function QueueClear(props: {
  sessionId: string;
  items: readonly QueueItemView[];
  reload: () => Promise<void>;
}) {
  const { t } = useTranslation();
  const { api } = useServices();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<QueueFailure>();
  const opener = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  // Set by Cancel and Escape: focus goes back to Clear once it is enabled again.
  const refocusOpener = useRef(false);
  const summary = clearSummaryOf(props.items);

  useEffect(() => {
    if (confirming) cancel.current?.focus();
    else if (refocusOpener.current) opener.current?.focus();
    refocusOpener.current = false;
  }, [confirming]);

  const close = () => {
    refocusOpener.current = true;
    setConfirming(false);
  };

  const clear = async () => {
    setBusy(true);
    setFailure(undefined);
    const result = await api.clearQueue(props.sessionId);
    setBusy(false);
    setConfirming(false);
    setFailure(clearFailureOf(result));
    await props.reload();
  };

  return (
    <div className="queue-clear" data-open={confirming || failure !== undefined}>
      <button
        ref={opener}
        type="button"
        className="button"
        data-testid="queue-clear"
        aria-expanded={confirming}
        disabled={confirming}
        onClick={() => {
          setFailure(undefined);
          setConfirming(true);
        }}
      >
        {t('queue.clear')}
      </button>
      {confirming ? (
        <div
          className="reject-confirm"
          role="group"
          aria-label={t('queue.clearLabel')}
          data-testid="queue-clear-confirm"
          onKeyDown={(event) => {
            if (event.key === 'Escape' && !busy) close();
          }}
        >
          <p>{t('queue.clearConfirm')}</p>
          {summary.messages > 0 ? (
            <p data-testid="queue-clear-messages">
              {t('queue.clearMessages', { count: summary.messages })}
            </p>
          ) : null}
          {summary.followUps > 0 ? (
            <p data-testid="queue-clear-follow-ups">
              {t('queue.clearFollowUps', { count: summary.followUps })}
            </p>
          ) : null}
          <div className="skip-confirm-actions">
            <button
              type="button"
              className="button button-danger"
              data-testid="queue-clear-yes"
              disabled={busy}
              onClick={() => void clear()}
            >
              {t('queue.clearYes')}
            </button>
            <button
              ref={cancel}
              type="button"
              className="button"
              data-testid="queue-clear-cancel"
              disabled={busy}
              onClick={close}
            >
              {t('userInput.queue.cancel')}
            </button>
          </div>
        </div>
      ) : null}
      {failure ? (
        <p className="error queue-error" role="alert" data-testid="queue-clear-error">
          {t(`queue.clearFailed.${failure}`)}
        </p>
      ) : null}
    </div>
  );
}

/** A person's message's Move up and Move down; named after the message, as screen readers list them. */
export function QueueMoveButtons(props: {
  text: string;
  canMoveUp: boolean;
  canMoveDown: boolean;
  onMove: (direction: MoveDirection) => void;
}) {
  const { t } = useTranslation();
  const text = namePreview(props.text);
  const button = (direction: MoveDirection, can: boolean) => (
    <button
      type="button"
      className="button"
      data-testid={`queue-move-${direction}`}
      data-move={direction}
      aria-label={t(direction === 'up' ? 'queue.moveUpNamed' : 'queue.moveDownNamed', { text })}
      disabled={!can}
      onClick={() => {
        props.onMove(direction);
      }}
    >
      {t(direction === 'up' ? 'queue.moveUp' : 'queue.moveDown')}
    </button>
  );
  return (
    <>
      {button('up', props.canMoveUp)}
      {button('down', props.canMoveDown)}
    </>
  );
}
