/**
 * `DecisionConfirm`: the second step of a Reject or Skip on a consent or
 * action card, of a bulk Reject, and of removing a person. It asks to
 * confirm and takes an optional reason in the person's own words (a Skip's
 * goes with the answer, a Reject's follows the agent's turn as a message);
 * the card then holds the answer for the undo window before it is sent.
 * Focus goes to the step itself, so the next Tab reaches the reason, or the
 * action where there is none.
 */
import { useId, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_ANSWER_TEXT_CODE_POINTS } from '../../../src/wire/limits.js';
import { codePoints } from '../../../src/wire/text.js';
import { ConfirmStep } from './confirm-step.js';

export function DecisionConfirm(props: {
  prompt: string;
  yes: string;
  /** Offer a reason field: only where the server passes it on. */
  withReason: boolean;
  /** The reason field's hint; a Skip's by default. */
  placeholder?: string;
  /** The step goes as it is confirmed: its opener takes the focus back (`ConfirmStep`). */
  backOnConfirm?: boolean;
  /** The opener, where it is made again while the step is open (`ConfirmStep`'s `opener`). */
  opener?: RefObject<HTMLElement | null>;
  onConfirm: (reason: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const over = codePoints(reason.trim()) - MAX_ANSWER_TEXT_CODE_POINTS;
  return (
    <ConfirmStep
      testId="decision-confirm"
      initialFocus="step"
      prompt={props.withReason ? <label htmlFor={reasonId}>{props.prompt}</label> : props.prompt}
      yes={props.yes}
      keep={t('decide.cancel')}
      yesTestId="decision-confirm-yes"
      keepTestId="decision-confirm-cancel"
      yesDisabled={over > 0}
      backOnConfirm={props.backOnConfirm}
      opener={props.opener}
      onConfirm={() => {
        props.onConfirm(reason.trim());
      }}
      onKeep={props.onCancel}
    >
      {props.withReason ? (
        <textarea
          id={reasonId}
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
      ) : null}
      {over > 0 ? (
        <p className="counter counter-over" aria-live="polite">
          {t('clarification.overLimit', { count: over })}
        </p>
      ) : null}
    </ConfirmStep>
  );
}
