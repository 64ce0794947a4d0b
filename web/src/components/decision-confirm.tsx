/**
 * `DecisionConfirm`: the second step of a Reject or Skip on a consent or
 * action card, of a bulk Reject, of removing a person, and of skipping a
 * clarification's questions (the overlay's "Skip all questions"). It asks to
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

const DEFAULT_TEST_IDS = {
  step: 'decision-confirm',
  reason: 'decision-reason',
  yes: 'decision-confirm-yes',
  cancel: 'decision-confirm-cancel',
};

export function DecisionConfirm(props: {
  prompt: string;
  yes: string;
  /** The way back; "Cancel" by default. */
  keep?: string;
  /** Offer a reason field: only where the server passes it on. */
  withReason: boolean;
  /** The reason field's hint; a Skip's by default. */
  placeholder?: string;
  /**
   * The reason, where it outlives the step's rendering (the overlay's, across a collapse);
   * the step keeps its own otherwise.
   */
  reason?: string;
  onReasonChange?: (reason: string) => void;
  /** Something else is on its way (`ConfirmStep`'s `pending`): the reason is read-only meanwhile. */
  pending?: boolean;
  /** Keys pressed inside stay there (`ConfirmStep`'s `containKeys` and `escapeToView`). */
  containKeys?: boolean;
  escapeToView?: boolean;
  /** The step goes as it is confirmed: its opener takes the focus back (`ConfirmStep`). */
  backOnConfirm?: boolean;
  /** The opener, where it is made again while the step is open (`ConfirmStep`'s `opener`). */
  opener?: RefObject<HTMLElement | null>;
  testIds?: typeof DEFAULT_TEST_IDS;
  onConfirm: (reason: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const reasonId = useId();
  const [ownReason, setOwnReason] = useState('');
  const reason = props.reason ?? ownReason;
  const setReason = props.onReasonChange ?? setOwnReason;
  const over = codePoints(reason.trim()) - MAX_ANSWER_TEXT_CODE_POINTS;
  const pending = props.pending ?? false;
  const testIds = props.testIds ?? DEFAULT_TEST_IDS;
  return (
    <ConfirmStep
      testId={testIds.step}
      initialFocus="step"
      prompt={props.withReason ? <label htmlFor={reasonId}>{props.prompt}</label> : props.prompt}
      yes={props.yes}
      keep={props.keep ?? t('decide.cancel')}
      yesTestId={testIds.yes}
      keepTestId={testIds.cancel}
      yesDisabled={!pending && over > 0}
      pending={pending}
      containKeys={props.containKeys}
      escapeToView={props.escapeToView}
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
          data-testid={testIds.reason}
          placeholder={props.placeholder ?? t('decide.skipReasonPlaceholder')}
          value={reason}
          rows={2}
          maxLength={MAX_ANSWER_TEXT_CODE_POINTS * 2}
          // Read-only, not disabled, while something goes: the focus stays where it was.
          readOnly={pending}
          aria-disabled={pending}
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
