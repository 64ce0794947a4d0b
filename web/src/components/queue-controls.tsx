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
import { useRef, useState } from 'react';
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
import { ConfirmStep } from './confirm-step.js';

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
  const summary = clearSummaryOf(props.items);

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
        <ConfirmStep
          testId="queue-clear-confirm"
          label={t('queue.clearLabel')}
          prompt={t('queue.clearConfirm')}
          yes={t('queue.clearYes')}
          keep={t('userInput.queue.cancel')}
          yesTestId="queue-clear-yes"
          keepTestId="queue-clear-cancel"
          pending={busy}
          opener={opener}
          onConfirm={() => void clear()}
          onKeep={() => {
            setConfirming(false);
          }}
        >
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
        </ConfirmStep>
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
