/**
 * `ClarificationOverlay`: the active bundle above the composer, one question
 * at a time (see `clarification-question-form.tsx` for the form and its
 * keyboard). Collapsing (Escape or the chevron) is local: it never rejects or
 * posts, and focus goes back to the composer through `onClose`; expanding
 * again puts focus in the overlay so its shortcuts work.
 *
 * In `message` mode the bundle turned out to be inactive or was settled
 * elsewhere: the same draft (complete or not) is sent as an ordinary message
 * instead, and Skip becomes Discard (it sends nothing).
 *
 * "Skip all questions" is deliberate: it sits apart from Submit, asks to
 * confirm and takes an optional reason in the person's own words, which is
 * what the agent reads; keys pressed in that step stay in it, so a digit
 * never answers a question on its way to being skipped. "Cancel question"
 * beside it (`QuestionCancel`) asks to confirm too.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useModelState } from '../app/services.js';
import type { ClarificationGroup } from '../hooks/use-clarification-group.js';
import { agentPlaceOf } from '../model/external-session.js';
import {
  ClarificationQuestionCard,
  ClarificationStepNav,
  ClarificationStepper,
  questionKeyHandler,
} from './clarification-question-form.js';
import { DecisionConfirm } from './decision-confirm.js';
import { QuestionCancel } from './question-cancel.js';

const SKIP_TEST_IDS = {
  step: 'clarification-skip-confirm',
  reason: 'clarification-skip-reason',
  yes: 'clarification-skip-confirm-yes',
  cancel: 'clarification-skip-cancel',
};

export function ClarificationOverlay({
  group,
  onClose,
  focusFieldFor,
  onFieldFocused,
}: {
  group: ClarificationGroup;
  /** Where focus goes when the overlay collapses: the composer. */
  onClose: () => void;
  /**
   * A bundle the person asked to answer from elsewhere ("Answer now"): once
   * shown, its first field takes focus, and `onFieldFocused` is told.
   */
  focusFieldFor?: string | undefined;
  onFieldFocused?: () => void;
}) {
  const { t } = useTranslation();
  const rootRef = useRef<HTMLElement>(null);
  const focusOnExpand = useRef(false);
  const skipButton = useRef<HTMLButtonElement>(null);
  const [skipping, setSkipping] = useState<{ forId: string; reason: string }>();
  const { bundle, draft, busy, collapsed, mode } = group;
  const pendingId = bundle?.pending_id;
  const place = agentPlaceOf(useModelState(), bundle?.session_id);

  useEffect(() => {
    // A new bundle, or a step that replaced the focused option, takes focus
    // back into the overlay unless the person is typing somewhere else.
    const active = document.activeElement;
    if (!active || active === document.body) rootRef.current?.focus({ preventScroll: true });
  }, [pendingId, draft.activeIndex]);

  useEffect(() => {
    // A question that arrives is shown, not just focused: the person must see what a key answers.
    rootRef.current?.scrollIntoView({ block: 'nearest' });
  }, [pendingId]);

  const shown = bundle !== undefined && draft.questions.length > 0 && !collapsed;
  useEffect(() => {
    // The button that asked is gone from under the focus, and focus on the bare overlay says
    // little: the question's own field takes it, so a screen reader reads the question out.
    const root = rootRef.current;
    if (!shown || !root || pendingId === undefined || pendingId !== focusFieldFor) return;
    const field = root.querySelector<HTMLElement>(
      '.question-card .option[tabindex="0"], .question-card textarea',
    );
    (field ?? root).focus();
    onFieldFocused?.();
  }, [shown, pendingId, focusFieldFor, onFieldFocused]);

  useEffect(() => {
    if (collapsed || !focusOnExpand.current) return;
    focusOnExpand.current = false;
    rootRef.current?.focus();
  }, [collapsed]);

  if (!bundle || draft.questions.length === 0) return null;

  const collapse = () => {
    group.setCollapsed(true);
    onClose();
  };

  if (collapsed) {
    return (
      <button
        type="button"
        className="clarification-bar"
        data-testid="clarification-collapsed"
        onClick={() => {
          focusOnExpand.current = true;
          group.setCollapsed(false);
        }}
        aria-expanded="false"
      >
        <span className="clarification-icon" aria-hidden="true">
          ?
        </span>
        <span>{t('clarification.needed')}</span>
        <span className="muted">
          {t('clarification.questionCount', { count: draft.questions.length })}
        </span>
        <span className="sr-only">{t('clarification.expand')}</span>
      </button>
    );
  }

  const late = mode === 'message';
  const showSubmit = late || draft.questions.length > 1;
  const confirmSkip = skipping?.forId === bundle.pending_id && !late ? skipping : undefined;
  // A kept draft's banner already says what happened and that nothing goes unless asked.
  const kept = group.state.phase === 'late' && group.state.message === 'kept';
  const notice = late
    ? kept
      ? undefined
      : t('clarification.lateNotice')
    : // Only an agent Clarion runs is resumed (an external one's answer is kept instead);
      // until the session says which, nothing is promised.
      bundle.detached && draft.activeIndex === 0 && place === 'clarion'
      ? t('clarification.movedOn')
      : undefined;

  return (
    <section
      ref={rootRef}
      className="clarification-overlay"
      data-testid="clarification-overlay"
      data-pending-id={bundle.pending_id}
      data-mode={mode}
      aria-label={t('clarification.needed')}
      aria-busy={busy}
      tabIndex={-1}
      onKeyDown={questionKeyHandler(draft, { busy, onEscape: collapse })}
    >
      <header className="clarification-header">
        <span className="clarification-icon" aria-hidden="true">
          ?
        </span>
        <h2 className="clarification-title">{t('clarification.needed')}</h2>
        <ClarificationStepper draft={draft} busy={busy} />
        <div className="clarification-actions">
          {showSubmit ? (
            <button
              type="button"
              className="button button-primary"
              data-testid="clarification-submit"
              // Not `disabled` while the answer goes: the keyboard's focus stays where it pressed.
              aria-disabled={busy}
              disabled={!busy && (late ? draft.answeredCount === 0 : !draft.allAnswered)}
              onClick={() => {
                if (busy) return;
                if (late) group.sendDraft();
                else draft.submit();
              }}
            >
              {busy ? <span className="spinner" aria-hidden="true" /> : null}
              {busy
                ? t('clarification.submitting')
                : late
                  ? t('clarification.sendAsMessage')
                  : t('clarification.submit')}
            </button>
          ) : null}
          {late ? (
            <button
              type="button"
              className="button"
              data-testid="clarification-discard"
              aria-disabled={busy}
              onClick={() => {
                if (!busy) group.dismiss();
              }}
            >
              {t('clarification.discard')}
            </button>
          ) : null}
          <button
            type="button"
            className="button button-icon"
            data-testid="clarification-collapse"
            aria-label={t('clarification.collapse')}
            aria-expanded="true"
            onClick={collapse}
          >
            ⌄
          </button>
        </div>
      </header>
      {bundle.context.trim() !== '' ? (
        <p className="clarification-context" data-testid="clarification-context">
          {bundle.context.trim()}
        </p>
      ) : null}
      <ClarificationQuestionCard draft={draft} busy={busy} notice={notice} />
      <ClarificationStepNav draft={draft} busy={busy} />
      {late ? null : confirmSkip ? (
        <DecisionConfirm
          prompt={t('decide.skipConfirm')}
          yes={t('decide.skipConfirmYes')}
          keep={t('decide.skipCancel')}
          withReason
          reason={confirmSkip.reason}
          onReasonChange={(reason) => {
            setSkipping({ forId: bundle.pending_id, reason });
          }}
          // An option clicked meanwhile may be on its way.
          pending={busy}
          // A digit would pick an option behind the step, and answer a question the person was
          // about to skip; Escape still collapses the overlay, the step kept in it.
          containKeys
          escapeToView
          // Skip then stands for the skip on its way (busy, in its undo window and then sent).
          backOnConfirm
          opener={skipButton}
          testIds={SKIP_TEST_IDS}
          onConfirm={(reason) => {
            group.skip(reason);
            setSkipping(undefined);
          }}
          onCancel={() => {
            setSkipping(undefined);
          }}
        />
      ) : (
        <div className="skip-row">
          <QuestionCancel group={group} />
          <button
            ref={skipButton}
            type="button"
            className="button button-quiet"
            data-testid="clarification-skip"
            // A digit picks an answer wherever the focus is in the overlay: not `disabled`, or the
            // focus on this button would drop to the page.
            aria-disabled={busy}
            onClick={() => {
              if (busy) return;
              setSkipping({ forId: bundle.pending_id, reason: '' });
            }}
          >
            {t('clarification.skip')}
          </button>
        </div>
      )}
    </section>
  );
}
