/**
 * `ClarificationOverlay`: one question at a time, with a stepper for bundles
 * of several. Keyboard (only while focus is inside and nothing is in flight):
 * 1–N pick an option, ←/→ move (→ on the last step submits when complete),
 * Ctrl/Cmd+Enter submits when every question is answered, Escape collapses
 * (never rejects, never posts). In the custom answer, Enter commits and
 * Shift+Enter adds a line on fine pointers; on coarse pointers Enter is a
 * newline and the Send button commits.
 */
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import {
  codePointLength,
  isAnswered,
  MAX_CUSTOM_CODE_POINTS,
  type ClarificationGroup,
} from '../hooks/use-clarification-group.js';
import { useCoarsePointer } from '../hooks/use-coarse-pointer.js';

const COUNTER_FROM = 1800;

function isEditable(target: EventTarget): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'INPUT';
}

export function ClarificationOverlay({ group }: { group: ClarificationGroup }) {
  const { t } = useTranslation();
  const coarse = useCoarsePointer();
  const rootRef = useRef<HTMLElement>(null);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const { bundle, questions, activeIndex, busy } = group;
  const question = questions[activeIndex];
  const multi = questions.length > 1;
  const pendingId = bundle?.pending_id;

  useEffect(() => {
    // A new bundle takes focus unless the person is typing somewhere else.
    const active = document.activeElement;
    if (!active || active === document.body) rootRef.current?.focus();
  }, [pendingId]);

  if (!bundle || !question) return null;

  if (group.collapsed) {
    return (
      <button
        type="button"
        className="clarification-bar"
        data-testid="clarification-collapsed"
        onClick={() => {
          group.setCollapsed(false);
        }}
        aria-expanded="false"
      >
        <span className="clarification-icon" aria-hidden="true">
          ?
        </span>
        <span>{t('clarification.needed')}</span>
        <span className="muted">
          {t('clarification.questionCount', { count: questions.length })}
        </span>
        <span className="sr-only">{t('clarification.expand')}</span>
      </button>
    );
  }

  const draft = group.drafts[question.question_id] ?? '';
  const length = codePointLength(draft.trim());
  const over = length - MAX_CUSTOM_CODE_POINTS;
  const answer = group.answers[question.question_id];
  const customRecorded = answer !== undefined && answer.custom_text !== '';

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    const plain = !event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey;
    if (event.key === 'Escape' && plain) {
      event.preventDefault();
      group.setCollapsed(true);
      return;
    }
    if (busy) return;
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      if (event.repeat) return;
      event.preventDefault();
      if (group.allAnswered && over <= 0) group.submit();
      return;
    }
    if (isEditable(event.target) || !plain) return;
    if (/^[1-9]$/.test(event.key)) {
      const option = question.options[Number(event.key) - 1];
      if (option) {
        event.preventDefault();
        group.pickOption(question.question_id, option.option_id);
      }
      return;
    }
    if (event.key === 'ArrowLeft') {
      event.preventDefault();
      group.setActiveIndex(activeIndex - 1);
    } else if (event.key === 'ArrowRight') {
      event.preventDefault();
      if (activeIndex === questions.length - 1) {
        if (group.allAnswered) group.submit();
      } else {
        group.setActiveIndex(activeIndex + 1);
      }
    }
  };

  const onTextKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
    if (event.ctrlKey || event.metaKey) return; // the overlay submits
    if (event.shiftKey || event.altKey || coarse) return; // newline
    event.preventDefault();
    if (over > 0 || busy) return;
    group.commitCustom(question.question_id);
  };

  return (
    <section
      ref={rootRef}
      className="clarification-overlay"
      data-testid="clarification-overlay"
      data-pending-id={bundle.pending_id}
      aria-label={t('clarification.needed')}
      aria-busy={busy}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <header className="clarification-header">
        <span className="clarification-icon" aria-hidden="true">
          ?
        </span>
        <h2 className="clarification-title">{t('clarification.needed')}</h2>
        {multi ? (
          <ol className="stepper" data-testid="clarification-stepper">
            {questions.map((q, index) => (
              <li key={q.question_id}>
                <button
                  type="button"
                  className="step"
                  data-active={index === activeIndex}
                  data-answered={isAnswered(group.answers[q.question_id])}
                  aria-current={index === activeIndex ? 'step' : undefined}
                  aria-label={t('clarification.goToStep', { step: index + 1 })}
                  disabled={busy}
                  onClick={() => {
                    group.setActiveIndex(index);
                  }}
                >
                  {isAnswered(group.answers[q.question_id]) && index !== activeIndex
                    ? '✓'
                    : index + 1}
                </button>
              </li>
            ))}
          </ol>
        ) : null}
        {multi ? (
          <span className="muted answered-count" data-testid="clarification-answered">
            {t('clarification.answeredOf', {
              answered: group.answeredCount,
              total: questions.length,
            })}
          </span>
        ) : null}
        <div className="clarification-actions">
          {multi ? (
            <button
              type="button"
              className="button button-primary"
              data-testid="clarification-submit"
              disabled={!group.allAnswered || busy}
              onClick={group.submit}
            >
              {busy ? <span className="spinner" aria-hidden="true" /> : null}
              {busy ? t('clarification.submitting') : t('clarification.submit')}
            </button>
          ) : null}
          <button
            type="button"
            className="button"
            data-testid="clarification-skip"
            disabled={busy}
            onClick={group.skip}
          >
            {t('clarification.skip')}
          </button>
          <button
            type="button"
            className="button button-icon"
            aria-label={t('clarification.collapse')}
            aria-expanded="true"
            onClick={() => {
              group.setCollapsed(true);
            }}
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
      <div
        className="question-card"
        data-testid="clarification-question"
        data-question-id={question.question_id}
      >
        {multi ? (
          <span className="chip">
            {t('clarification.stepOf', { current: activeIndex + 1, total: questions.length })}
          </span>
        ) : null}
        {question.title ? <h3 className="question-title">{question.title}</h3> : null}
        <p className="question-prompt">{question.prompt}</p>
        {bundle.detached && activeIndex === 0 ? (
          <p className="notice">{t('clarification.movedOn')}</p>
        ) : null}
        <ul className="options" role={question.multi_select ? 'group' : 'radiogroup'}>
          {question.options.map((option, index) => {
            const selected = answer?.selected_options.includes(option.option_id) ?? false;
            return (
              <li key={option.option_id}>
                <button
                  type="button"
                  className="option"
                  role={question.multi_select ? 'checkbox' : 'radio'}
                  aria-checked={selected}
                  data-selected={selected}
                  data-option-id={option.option_id}
                  disabled={busy}
                  onClick={() => {
                    group.pickOption(question.question_id, option.option_id);
                  }}
                >
                  <span className="option-badge" aria-hidden="true">
                    {selected ? '✓' : index + 1}
                  </span>
                  <span className="option-text">
                    <span className="option-label">{option.label}</span>
                    {option.description ? (
                      <span className="option-description">{option.description}</span>
                    ) : null}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
        <div
          className="custom-answer"
          onClick={(event) => {
            if (event.target === event.currentTarget) textRef.current?.focus();
          }}
        >
          <textarea
            ref={textRef}
            className="custom-input"
            data-testid="clarification-custom"
            aria-label={t('clarification.customLabel')}
            placeholder={
              customRecorded
                ? t('clarification.customUpdate')
                : t('clarification.customPlaceholder')
            }
            value={draft}
            maxLength={MAX_CUSTOM_CODE_POINTS * 2}
            rows={1}
            disabled={busy}
            enterKeyHint={coarse ? 'enter' : 'send'}
            onChange={(event) => {
              group.setCustomText(question.question_id, event.target.value);
            }}
            onKeyDown={onTextKeyDown}
          />
          {coarse ? (
            <button
              type="button"
              className="button button-primary"
              data-testid="clarification-custom-send"
              disabled={busy || over > 0 || draft.trim() === ''}
              onClick={() => {
                group.commitCustom(question.question_id);
              }}
            >
              {t('clarification.send')}
            </button>
          ) : null}
        </div>
        {length > COUNTER_FROM ? (
          <p className={over > 0 ? 'counter counter-over' : 'counter'} aria-live="polite">
            {over > 0
              ? t('clarification.overLimit', { count: over })
              : t('clarification.remaining', { count: MAX_CUSTOM_CODE_POINTS - length })}
          </p>
        ) : null}
        {!coarse ? (
          <p className="hint muted">
            {t('clarification.hint', { count: question.options.length })}
          </p>
        ) : null}
      </div>
      {multi ? (
        <nav className="clarification-nav">
          <button
            type="button"
            className="button"
            data-testid="clarification-back"
            disabled={busy || activeIndex === 0}
            onClick={() => {
              group.setActiveIndex(activeIndex - 1);
            }}
          >
            {t('clarification.back')}
          </button>
          <button
            type="button"
            className="button"
            data-testid="clarification-next"
            disabled={busy || activeIndex === questions.length - 1}
            onClick={() => {
              group.setActiveIndex(activeIndex + 1);
            }}
          >
            {t('clarification.next')}
          </button>
        </nav>
      ) : null}
    </section>
  );
}
