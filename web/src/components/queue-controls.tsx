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
 * Escape hands focus back to Clear, as does a clear that failed (nothing
 * changed: the person may try again). What a clear did not do is told under
 * the queue's title (`useQueueClear`).
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { QueueClearing } from '../hooks/use-queue-clear.js';
import { clearSummaryOf, namePreview, type MoveDirection } from '../model/queue-controls.js';
import type { QueueItemView } from '../model/types.js';
import { ConfirmStep } from './confirm-step.js';

export function QueueClear(props: {
  items: readonly QueueItemView[];
  clearing: QueueClearing;
  /** The confirmation closed once the clear was answered: the focus it had may need a place. */
  onAnswered: () => void;
}) {
  const { t } = useTranslation();
  const [confirming, setConfirming] = useState(false);
  // A failed clear closed the confirmation: Clear takes the focus once it shows enabled again.
  const [backToClear, setBackToClear] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const { clearing } = props;
  const summary = clearSummaryOf(props.items);

  useEffect(() => {
    if (!backToClear) return;
    setBackToClear(false);
    const active = document.activeElement;
    if (active === null || active === document.body) opener.current?.focus();
  }, [backToClear]);

  const confirm = async () => {
    let cleared = false;
    try {
      cleared = await clearing.clear();
    } finally {
      setConfirming(false);
      // Clear's own effect runs first, so the queue's place for the focus is only the fallback:
      // a queue that emptied meanwhile took Clear along.
      if (!cleared) setBackToClear(true);
      props.onAnswered();
    }
  };

  return (
    <div className="queue-clear" data-open={confirming}>
      <button
        ref={opener}
        type="button"
        className="button"
        data-testid="queue-clear"
        aria-expanded={confirming}
        disabled={confirming}
        onClick={() => {
          clearing.dismiss();
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
          pending={clearing.busy}
          opener={opener}
          onConfirm={() => void confirm()}
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
    </div>
  );
}

/**
 * What the last clear did not do: why it failed as a whole, or which items it
 * did not remove and why. Shown under the queue's title, even once the queue
 * is empty.
 */
export function QueueClearOutcome({ clearing }: { clearing: QueueClearing }) {
  const { t } = useTranslation();
  if (clearing.failure) {
    return (
      <p className="error queue-error" role="alert" data-testid="queue-clear-error">
        {t(`queue.clearFailed.${clearing.failure}`)}
      </p>
    );
  }
  if (clearing.misses.length === 0) return null;
  return (
    <div className="error queue-error" role="alert" data-testid="queue-clear-misses">
      <ul>
        {clearing.misses.map((miss) => (
          <li
            key={miss.id}
            data-testid="queue-clear-miss"
            data-item-id={miss.id}
            data-reason={miss.reason}
          >
            {t(`queue.clearMissed.${miss.reason}`, { text: namePreview(miss.text) })}
          </li>
        ))}
      </ul>
      <button type="button" className="button" onClick={clearing.dismiss}>
        {t('banner.close')}
      </button>
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
