/**
 * `QuestionCancel`: "Cancel question" on a live question, in the overlay and
 * inline in the inbox. Cancelling is destructive for the agent (it stops
 * waiting and is told the question was cancelled), so it first asks in the
 * page; "Keep the question" changes nothing. Offered only while an agent is
 * known to wait (not on a detached question, which the server would refuse);
 * a refusal says why beside the question, which stays answerable.
 *
 * Confirming hands the focus back to "Cancel question", busy while the
 * cancel goes (and while an answer or a skip does).
 *
 * Keys pressed inside the confirmation stay there: the overlay's digits
 * would otherwise pick an option behind it. Escape backs out of it, and in
 * the overlay still collapses.
 */
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ClarificationGroup } from '../hooks/use-clarification-group.js';
import { ConfirmStep } from './confirm-step.js';
import { useRefusalReason } from '../hooks/use-failure-reason.js';

export function QuestionCancel({
  group,
  onEngaged,
}: {
  group: ClarificationGroup;
  /** Called when the person starts a cancel, so the view keeps its outcome on screen. */
  onEngaged?: () => void;
}) {
  const { t } = useTranslation();
  const refusalReason = useRefusalReason();
  const [confirmingFor, setConfirmingFor] = useState<string>();
  const openerRef = useRef<HTMLButtonElement>(null);
  const { bundle, state, cancelRefusal } = group;
  // Shown while an answer, a skip or the cancel itself goes too (busy): the keyboard's focus may
  // be on it, and a control that went from under it would drop that focus to the page.
  const offered =
    bundle !== undefined &&
    !bundle.detached &&
    group.mode === 'respond' &&
    (state.phase === 'idle' || group.busy);
  const confirming = offered && confirmingFor === bundle.pending_id;

  return (
    <>
      {cancelRefusal ? (
        <div
          className="banner banner-warn question-cancel-refusal"
          role="alert"
          data-testid="question-cancel-refusal"
          data-kind={cancelRefusal.kind}
        >
          <span>
            {cancelRefusal.kind === 'refused'
              ? t('questionCancel.refused', { reason: refusalReason(cancelRefusal.code) })
              : t(`questionCancel.${cancelRefusal.kind}`)}
          </span>
          {cancelRefusal.kind === 'failed' ? (
            <button type="button" className="button button-primary" onClick={group.cancel}>
              {t('banner.retry')}
            </button>
          ) : null}
          <button type="button" className="button" onClick={group.dismissCancelRefusal}>
            {t('banner.close')}
          </button>
        </div>
      ) : null}
      {!offered ? null : confirming ? (
        <ConfirmStep
          testId="question-cancel-confirm"
          className="confirm-step question-cancel-confirm"
          prompt={t('questionCancel.confirm')}
          yes={t('questionCancel.yes')}
          keep={t('questionCancel.keep')}
          yesTestId="question-cancel-yes"
          keepTestId="question-cancel-keep"
          opener={openerRef}
          backOnConfirm
          containKeys
          onConfirm={() => {
            setConfirmingFor(undefined);
            group.cancel();
          }}
          onKeep={() => {
            setConfirmingFor(undefined);
          }}
        />
      ) : (
        <button
          ref={openerRef}
          type="button"
          className="button button-quiet"
          data-testid="question-cancel"
          // Not `disabled` while busy: it keeps the focus, and stands for a cancel on its way.
          aria-disabled={group.busy}
          onClick={() => {
            if (group.busy) return;
            onEngaged?.();
            group.dismissCancelRefusal();
            setConfirmingFor(bundle.pending_id);
          }}
        >
          {t('questionCancel.open')}
        </button>
      )}
    </>
  );
}
