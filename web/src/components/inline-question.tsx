/**
 * A one-question bundle answered from the inbox without opening its session.
 * Shares the overlay's hook (`useClarificationGroup`): the same respond call,
 * deadline, Retry, late-answer message and race outcomes, told by the same
 * `ClarificationStatusBanner`. Multi-question bundles (forms) open their
 * session instead: a form needs the stepper.
 *
 * The inbox keeps this item mounted after the bundle leaves the waiting list
 * (`onEngaged`), so the outcome of an answer or a cancel stays on screen
 * until closed.
 */
import { useTranslation } from 'react-i18next';
import { useClarificationGroup } from '../hooks/use-clarification-group.js';
import { showBidiControls } from '../model/bidi.js';
import type { BundleState } from '../model/read-model.js';
import { ClarificationStatusBanner } from './clarification-status-banner.js';
import { OptionText } from './option-text.js';
import { QuestionCancel } from './question-cancel.js';

export function InlineQuestion(props: {
  /** The live bundle; `undefined` once it is no longer waiting. */
  bundle: BundleState | undefined;
  onEngaged: () => void;
  onReleased: () => void;
}) {
  const { t } = useTranslation();
  const group = useClarificationGroup(props.bundle);
  const { draft } = group;
  const question = draft.questions[0];
  const banner = {
    ...group,
    dismiss: () => {
      group.dismiss();
      props.onReleased();
    },
  };
  if (!question || draft.questions.length !== 1) return null;
  const chosen = draft.answers.get(question.question_id)?.selected_options ?? [];
  return (
    <div className="inline-question" data-testid="inline-question">
      {group.formVisible && group.mode === 'respond' ? (
        <div className="inline-options" role="group" aria-label={showBidiControls(question.prompt)}>
          {question.options.map((option) => (
            <button
              key={option.option_id}
              type="button"
              className="button inline-option"
              data-testid="inline-option"
              data-option-id={option.option_id}
              aria-pressed={chosen.includes(option.option_id)}
              // Not `disabled` while the answer goes: the keyboard's focus stays where it pressed.
              aria-disabled={group.busy}
              onClick={() => {
                if (group.busy) return;
                props.onEngaged();
                draft.pickOption(question.question_id, option.option_id);
              }}
            >
              {/* Shown, as in the overlay: a choice made from the inbox is made knowing what it means. */}
              <OptionText option={option} />
            </button>
          ))}
          {question.multi_select ? (
            <button
              type="button"
              className="button button-primary"
              data-testid="inline-send"
              aria-disabled={group.busy}
              disabled={!group.busy && chosen.length === 0}
              onClick={() => {
                if (group.busy) return;
                props.onEngaged();
                draft.submit();
              }}
            >
              {t('triage.send')}
            </button>
          ) : null}
        </div>
      ) : null}
      {group.formVisible ? (
        <div className="inline-cancel">
          <QuestionCancel group={group} onEngaged={props.onEngaged} />
        </div>
      ) : null}
      <ClarificationStatusBanner group={banner} />
    </div>
  );
}
