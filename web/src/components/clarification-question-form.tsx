/**
 * The question form shared by the live overlay and the transcript's "answer
 * in a new message" form: stepper, one question card (options, custom
 * answer), Back/Next, and the keyboard.
 *
 * Keyboard (the handler goes on the form's root, so it only acts while focus
 * is inside it; nothing but Escape acts while a request is in flight): 1–N
 * pick an option that is wholly visible, ←/→ move (→ on the last step submits when complete),
 * ↑/↓ (and Home/End) move focus between the options of the group (one roving tab stop),
 * Ctrl/Cmd+Enter submits when every question is answered, Escape closes or
 * collapses (never a rejection). In the custom answer, Enter commits and
 * Shift+Enter adds a line on fine pointers; on coarse pointers Enter is a
 * newline and the Send button commits.
 */
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import {
  codePointLength,
  MAX_CUSTOM_CODE_POINTS,
  type ClarificationDraft,
} from '../hooks/use-clarification-draft.js';
import { useCoarsePointer } from '../hooks/use-coarse-pointer.js';
import { isAnswered } from '../model/question-answers.js';
import { OptionText } from './option-text.js';
import { UserText } from './user-text.js';

const COUNTER_FROM = 1800;

function isEditable(target: EventTarget): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'INPUT';
}

/**
 * Whether `element` is wholly on screen and not scrolled away inside the
 * overlay: a shortcut must never choose an option the person cannot see.
 */
function fullyVisible(element: Element | null, within: Element): boolean {
  if (!element) return false;
  const rect = element.getBoundingClientRect();
  const frame = within.getBoundingClientRect();
  const top = Math.max(0, frame.top);
  const bottom = Math.min(window.innerHeight, frame.bottom);
  return rect.height > 0 && rect.top >= top - 1 && rect.bottom <= bottom + 1;
}

/** Where ↑/↓/Home/End take focus among `count` options from `from`; undefined for other keys. */
function optionStep(key: string, from: number, count: number): number | undefined {
  switch (key) {
    case 'ArrowDown':
      return (from + 1) % count;
    case 'ArrowUp':
      return (from - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return undefined;
  }
}

/** Arrow keys move focus inside a radio or checkbox group; they never pick (a pick may send). */
function moveOptionFocus(event: KeyboardEvent<HTMLElement>): void {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const buttons = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('button.option')];
  const from = buttons.findIndex((button) => button === document.activeElement);
  if (from < 0) return;
  const to = optionStep(event.key, from, buttons.length);
  if (to === undefined) return;
  event.preventDefault();
  buttons[to]?.focus();
}

function overLimit(draft: ClarificationDraft): boolean {
  return draft.questions.some(
    (q) => codePointLength((draft.drafts.get(q.question_id) ?? '').trim()) > MAX_CUSTOM_CODE_POINTS,
  );
}

export function questionKeyHandler(
  draft: ClarificationDraft,
  options: { busy: boolean; onEscape: () => void },
) {
  return (event: KeyboardEvent<HTMLElement>) => {
    const plain = !event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey;
    if (event.key === 'Escape' && plain) {
      event.preventDefault();
      options.onEscape();
      return;
    }
    if (options.busy) return;
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      if (event.repeat) return;
      event.preventDefault();
      if (!overLimit(draft)) draft.submit();
      return;
    }
    if (isEditable(event.target) || !plain) return;
    const question = draft.questions[draft.activeIndex];
    if (!question) return;
    if (/^[1-9]$/.test(event.key)) {
      const option = question.options[Number(event.key) - 1];
      if (!option) return;
      const button = event.currentTarget.querySelector(
        `[data-option-id="${CSS.escape(option.option_id)}"]`,
      );
      if (!fullyVisible(button, event.currentTarget)) return;
      event.preventDefault();
      draft.pickOption(question.question_id, option.option_id);
      return;
    }
    if (event.key === 'ArrowLeft') {
      event.preventDefault();
      draft.setActiveIndex(draft.activeIndex - 1);
    } else if (event.key === 'ArrowRight') {
      event.preventDefault();
      if (draft.activeIndex < draft.questions.length - 1)
        draft.setActiveIndex(draft.activeIndex + 1);
      else draft.submit();
    }
  };
}

export function ClarificationStepper({
  draft,
  busy,
}: {
  draft: ClarificationDraft;
  busy: boolean;
}) {
  const { t } = useTranslation();
  if (draft.questions.length < 2) return null;
  return (
    <>
      <ol className="stepper" data-testid="clarification-stepper">
        {draft.questions.map((q, index) => {
          const answered = isAnswered(draft.answers.get(q.question_id));
          const current = index === draft.activeIndex;
          return (
            <li key={q.question_id}>
              <button
                type="button"
                className="step"
                data-active={current}
                data-answered={answered}
                aria-current={current ? 'step' : undefined}
                aria-label={t('clarification.goToStep', { step: index + 1 })}
                aria-disabled={busy}
                onClick={() => {
                  if (busy) return;
                  draft.setActiveIndex(index);
                }}
              >
                {answered && !current ? '✓' : index + 1}
              </button>
            </li>
          );
        })}
      </ol>
      {/* A live region: answering a step is announced, not only drawn as a tick. */}
      <span className="muted answered-count" data-testid="clarification-answered" role="status">
        {t('clarification.answeredOf', {
          answered: draft.answeredCount,
          total: draft.questions.length,
        })}
      </span>
    </>
  );
}

export function ClarificationQuestionCard({
  draft,
  busy,
  notice,
}: {
  draft: ClarificationDraft;
  busy: boolean;
  notice?: string;
}) {
  const { t } = useTranslation();
  const coarse = useCoarsePointer();
  const textRef = useRef<HTMLTextAreaElement>(null);
  const promptId = useId();
  // The group's one tab stop: the option focused last, else the first selected, else the first.
  const [focused, setFocused] = useState<{ questionId: string; optionId: string }>();
  const question = draft.questions[draft.activeIndex];
  if (!question) return null;
  const multi = draft.questions.length > 1;
  const text = draft.drafts.get(question.question_id) ?? '';
  const length = codePointLength(text.trim());
  const over = length - MAX_CUSTOM_CODE_POINTS;
  const answer = draft.answers.get(question.question_id);
  const customRecorded = answer !== undefined && answer.custom_text !== '';
  const focusedIndex =
    focused?.questionId === question.question_id
      ? question.options.findIndex((option) => option.option_id === focused.optionId)
      : -1;
  const selectedIndex = question.options.findIndex(
    (option) => answer?.selected_options.includes(option.option_id) ?? false,
  );
  const tabStop = focusedIndex >= 0 ? focusedIndex : Math.max(0, selectedIndex);

  const onTextKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
    if (event.ctrlKey || event.metaKey) return; // the form submits
    if (event.shiftKey || event.altKey || coarse) return; // newline
    event.preventDefault();
    if (over > 0 || busy) return;
    draft.commitCustom(question.question_id);
  };

  return (
    <div
      className="question-card"
      data-testid="clarification-question"
      data-question-id={question.question_id}
    >
      {multi ? (
        <span className="chip">
          {t('clarification.stepOf', {
            current: draft.activeIndex + 1,
            total: draft.questions.length,
          })}
        </span>
      ) : null}
      {question.title ? (
        <h3 className="question-title">
          <UserText text={question.title} />
        </h3>
      ) : null}
      <p className="question-prompt" id={promptId}>
        <UserText text={question.prompt} />
      </p>
      {notice ? <p className="notice">{notice}</p> : null}
      <ul
        className="options"
        role={question.multi_select ? 'group' : 'radiogroup'}
        aria-labelledby={promptId}
        onKeyDown={moveOptionFocus}
      >
        {question.options.map((option, index) => {
          const selected = answer?.selected_options.includes(option.option_id) ?? false;
          return (
            <li key={option.option_id} role="none">
              <button
                type="button"
                className="option"
                role={question.multi_select ? 'checkbox' : 'radio'}
                aria-checked={selected}
                data-selected={selected}
                data-option-id={option.option_id}
                tabIndex={index === tabStop ? 0 : -1}
                // Not `disabled` while the answer goes: the keyboard's focus stays on the pick.
                aria-disabled={busy}
                onFocus={() => {
                  setFocused({ questionId: question.question_id, optionId: option.option_id });
                }}
                onClick={() => {
                  if (busy) return;
                  draft.pickOption(question.question_id, option.option_id);
                }}
              >
                <span className="option-badge" aria-hidden="true">
                  {selected ? '✓' : index + 1}
                </span>
                <OptionText option={option} />
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
            customRecorded ? t('clarification.customUpdate') : t('clarification.customPlaceholder')
          }
          value={text}
          maxLength={MAX_CUSTOM_CODE_POINTS * 2}
          rows={1}
          // Read-only, not disabled, while the answer goes: Enter here may have sent it.
          readOnly={busy}
          aria-disabled={busy}
          enterKeyHint={coarse ? 'enter' : 'send'}
          onChange={(event) => {
            draft.setCustomText(question.question_id, event.target.value);
          }}
          onKeyDown={onTextKeyDown}
        />
        {coarse ? (
          <button
            type="button"
            className="button button-primary"
            data-testid="clarification-custom-send"
            aria-disabled={busy}
            disabled={!busy && (over > 0 || text.trim() === '')}
            onClick={() => {
              if (busy) return;
              draft.commitCustom(question.question_id);
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
        <p className="hint muted">{t('clarification.hint', { count: question.options.length })}</p>
      ) : null}
    </div>
  );
}

export function ClarificationStepNav({
  draft,
  busy,
}: {
  draft: ClarificationDraft;
  busy: boolean;
}) {
  const { t } = useTranslation();
  if (draft.questions.length < 2) return null;
  return (
    <nav className="clarification-nav">
      <button
        type="button"
        className="button"
        data-testid="clarification-back"
        aria-disabled={busy}
        disabled={!busy && draft.activeIndex === 0}
        onClick={() => {
          if (busy) return;
          draft.setActiveIndex(draft.activeIndex - 1);
        }}
      >
        {t('clarification.back')}
      </button>
      <button
        type="button"
        className="button"
        data-testid="clarification-next"
        aria-disabled={busy}
        disabled={!busy && draft.activeIndex === draft.questions.length - 1}
        onClick={() => {
          if (busy) return;
          draft.setActiveIndex(draft.activeIndex + 1);
        }}
      >
        {t('clarification.next')}
      </button>
    </nav>
  );
}
