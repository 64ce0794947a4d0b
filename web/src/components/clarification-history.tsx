/**
 * A clarification question in the transcript that the overlay does not show:
 * history (answered, skipped, expired, cancelled, superseded by a newer
 * turn, or no longer this person's to see: `question-outcome.ts`), or still
 * waiting beside the one the overlay shows (an agent that asked in
 * parallel). A waiting one offers "Answer now", which puts it in the
 * overlay. History offers "Answer in a new message" while the session takes
 * messages (not once its person was deleted): the same question form
 * as the overlay, inline under the row, that sends the answer as an ordinary
 * message and never touches the question itself. Closing the form (Cancel,
 * Escape, or a sent message) returns focus to the button that opened it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useModelState } from '../app/services.js';
import { useClarificationHistory } from '../hooks/use-clarification-history.js';
import { useDescribeAnswer } from '../hooks/use-describe-answer.js';
import { isBundleActive, type BundleQuestion, type BundleState } from '../model/read-model.js';
import { questionOutcome, type BundleKnown } from '../model/question-outcome.js';
import type { MessageView } from '../model/types.js';
import { DecidedBy } from './decision-record.js';
import { UserText } from './user-text.js';
import {
  ClarificationQuestionCard,
  ClarificationStepNav,
  ClarificationStepper,
  questionKeyHandler,
} from './clarification-question-form.js';

type Admitted = 'sent' | 'queued';

function useOutcomeSummary(
  message: MessageView,
  question: BundleQuestion,
  bundle: BundleKnown,
): string {
  const { t } = useTranslation();
  const describeAnswer = useDescribeAnswer();
  const response = message.metadata.response as
    { selected_options?: string[]; custom_text?: string } | undefined;
  const answer = describeAnswer(question, {
    selected_options: response?.selected_options ?? [],
    custom_text: response?.custom_text ?? '',
  });
  const outcome = questionOutcome(question.status, bundle, message.metadata.expired_by);
  return outcome === 'answered'
    ? t('transcript.answered', { answer: answer || t('transcript.noSelection') })
    : t(`transcript.${outcome}`);
}

export function ClarificationHistoryRow({
  message,
  question: rowQuestion,
  bundle,
  onAnswerNow,
  lateAnswers,
}: {
  message: MessageView;
  question: BundleQuestion;
  /** The bundle the row belongs to; without it there is nothing to answer. */
  bundle: BundleState | undefined;
  /** Shows a still-active bundle in the overlay. */
  onAnswerNow: (pendingId: string) => void;
  /** Whether "Answer in a new message" can work: the session takes messages. */
  lateAnswers: boolean;
}) {
  const { t } = useTranslation();
  // The bundle also knows what this client learned from its own respond call.
  const question = bundle?.questions.get(rowQuestion.question_id) ?? rowQuestion;
  const state = useModelState();
  const waiting = bundle !== undefined && isBundleActive(state, bundle);
  const summary = useOutcomeSummary(
    message,
    question,
    waiting ? 'active' : bundle ? 'inactive' : 'forgotten',
  );
  const [open, setOpen] = useState(false);
  const [admitted, setAdmitted] = useState<Admitted>();
  const openerRef = useRef<HTMLButtonElement>(null);

  const close = useCallback(() => {
    setOpen(false);
    openerRef.current?.focus();
  }, []);
  const onAdmitted = useCallback(
    (outcome: Admitted) => {
      setAdmitted(outcome);
      close();
    },
    [close],
  );

  return (
    <>
      <article
        className="message message-question"
        data-testid="question-row"
        data-status={question.status}
        data-question-id={question.question_id}
      >
        <p className="muted">
          <UserText text={question.prompt} />
        </p>
        <p className="question-outcome">{summary}</p>
        {question.status === 'pending' ? null : <DecidedBy value={message.metadata.responded_by} />}
        {bundle && waiting ? (
          <button
            type="button"
            className="button button-link"
            data-testid="answer-now"
            onClick={() => {
              onAnswerNow(bundle.pending_id);
            }}
          >
            {t('transcript.answerNow')}
          </button>
        ) : bundle && lateAnswers ? (
          <button
            ref={openerRef}
            type="button"
            className="button button-link late-answer-open"
            data-testid="late-answer-open"
            aria-expanded={open}
            onClick={() => {
              setAdmitted(undefined);
              setOpen(true);
            }}
          >
            {t('lateAnswer.open')}
          </button>
        ) : null}
        {admitted ? (
          <p className="muted" role="status" data-testid="late-answer-status" data-state={admitted}>
            {admitted === 'sent' ? t('lateAnswer.sent') : t('lateAnswer.queued')}
          </p>
        ) : null}
      </article>
      {open && bundle && lateAnswers ? (
        <HistoryForm
          bundle={bundle}
          initialIndex={question.index}
          onClose={close}
          onAdmitted={onAdmitted}
        />
      ) : null}
    </>
  );
}

function HistoryForm({
  bundle,
  initialIndex,
  onClose,
  onAdmitted,
}: {
  bundle: BundleState;
  initialIndex: number;
  onClose: () => void;
  onAdmitted: (outcome: Admitted) => void;
}) {
  const { t } = useTranslation();
  const rootRef = useRef<HTMLElement>(null);
  const { draft, state, busy } = useClarificationHistory(bundle, initialIndex, onAdmitted);

  useEffect(() => {
    rootRef.current?.focus();
  }, []);
  useEffect(() => {
    // A step change unmounts the focused option; keep the form's shortcuts and Escape working.
    const active = document.activeElement;
    if (!active || active === document.body) rootRef.current?.focus();
  }, [draft.activeIndex]);

  return (
    <section
      ref={rootRef}
      className="clarification-overlay late-answer-form"
      data-testid="late-answer-form"
      data-pending-id={bundle.pending_id}
      aria-label={t('lateAnswer.title')}
      aria-busy={busy}
      tabIndex={-1}
      onKeyDown={questionKeyHandler(draft, { busy, onEscape: onClose })}
    >
      <header className="clarification-header">
        {/* In the transcript, right under the page's title. */}
        <h2 className="clarification-title">{t('lateAnswer.title')}</h2>
        <ClarificationStepper draft={draft} busy={busy} />
      </header>
      <p className="muted late-answer-explain">{t('lateAnswer.explain')}</p>
      {bundle.context.trim() !== '' ? (
        <p className="clarification-context">{bundle.context.trim()}</p>
      ) : null}
      <ClarificationQuestionCard draft={draft} busy={busy} />
      <ClarificationStepNav draft={draft} busy={busy} />
      {state.phase === 'failed' ? (
        <p className="error" role="alert" data-testid="late-answer-error">
          {state.reason === 'refused'
            ? t('lateAnswer.refused')
            : state.reason === 'earlier_sent'
              ? t('lateAnswer.earlier')
              : t('lateAnswer.failed')}
        </p>
      ) : null}
      <div className="late-answer-actions">
        <button
          type="button"
          className="button button-primary"
          data-testid="late-answer-send"
          // Not `disabled` while it goes: the keyboard's focus stays where it pressed.
          aria-disabled={busy}
          disabled={!busy && !draft.allAnswered}
          onClick={() => {
            if (!busy) draft.submit();
          }}
        >
          {busy ? <span className="spinner" aria-hidden="true" /> : null}
          {busy ? t('lateAnswer.sending') : t('lateAnswer.send')}
        </button>
        <button
          type="button"
          className="button"
          data-testid="late-answer-cancel"
          aria-disabled={busy}
          onClick={() => {
            if (!busy) onClose();
          }}
        >
          {t('lateAnswer.cancel')}
        </button>
      </div>
    </section>
  );
}
