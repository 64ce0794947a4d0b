/**
 * An option of a question as a person chooses it: its label and, under it,
 * its description, which says what choosing it means. The question's own
 * view and the inbox's inline answer show it alike.
 */
import type { QuestionOption } from '../../../src/wire/index.js';
import { UserText } from './user-text.js';

export function OptionText({ option }: { option: QuestionOption }) {
  return (
    <span className="option-text">
      <span className="option-label">
        <UserText text={option.label} />
      </span>
      {option.description ? (
        <span className="option-description">
          <UserText text={option.description} />
        </span>
      ) : null}
    </span>
  );
}
