/**
 * `DecisionConfirm`: the second step of a Reject or Skip on a consent or
 * action card, and of a bulk Reject. It asks to confirm and takes an optional
 * reason in the person's own words (a Skip's goes with the answer, a
 * Reject's follows the agent's turn as a message); the card then holds the
 * answer for the undo window before it is sent.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_ANSWER_TEXT_CODE_POINTS } from '../../../src/wire/limits.js';
import { codePoints } from '../../../src/wire/text.js';

export function DecisionConfirm(props: {
  prompt: string;
  yes: string;
  /** Offer a reason field: only where the server passes it on. */
  withReason: boolean;
  /** The reason field's hint; a Skip's by default. */
  placeholder?: string;
  onConfirm: (reason: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [reason, setReason] = useState('');
  const over = codePoints(reason.trim()) - MAX_ANSWER_TEXT_CODE_POINTS;
  return (
    <div className="reject-confirm" role="group" data-testid="decision-confirm">
      {props.withReason ? (
        <label className="skip-reason-label">
          {props.prompt}
          <textarea
            className="custom-input skip-reason"
            data-testid="decision-reason"
            placeholder={props.placeholder ?? t('decide.skipReasonPlaceholder')}
            value={reason}
            rows={2}
            maxLength={MAX_ANSWER_TEXT_CODE_POINTS * 2}
            onChange={(event) => {
              setReason(event.target.value);
            }}
          />
        </label>
      ) : (
        <p>{props.prompt}</p>
      )}
      {over > 0 ? (
        <p className="counter counter-over" aria-live="polite">
          {t('clarification.overLimit', { count: over })}
        </p>
      ) : null}
      <div className="skip-confirm-actions">
        <button
          type="button"
          className="button button-danger"
          data-testid="decision-confirm-yes"
          disabled={over > 0}
          onClick={() => {
            props.onConfirm(reason.trim());
          }}
        >
          {props.yes}
        </button>
        <button
          type="button"
          className="button"
          data-testid="decision-confirm-cancel"
          onClick={props.onCancel}
        >
          {t('decide.cancel')}
        </button>
      </div>
    </div>
  );
}
