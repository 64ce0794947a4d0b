/**
 * The New task form's own check of what it can judge before sending: the
 * server's refusals come in English (its wire messages), so the mistakes a
 * person makes most, a missing or too long title or prompt, are caught here
 * and said in the page's language. Same rules as `createTaskBody`.
 */
import { MAX_MESSAGE_CHARS, MAX_TASK_TITLE_CHARS } from '../../../src/wire/limits.js';
import { codePoints, isBlankText } from '../../../src/wire/text.js';
import { TASK_FIELD_PROBLEMS, type TaskFieldProblem } from '../../../src/wire/constants.js';

export type NewTaskProblem =
  | { field: 'title'; problem: 'required' }
  | { field: 'title' | 'prompt'; problem: 'too_long'; max: number };

/** `prompt` as the form sends it: left out when blank. */
export function newTaskProblems(title: string, prompt: string): NewTaskProblem[] {
  const problems: NewTaskProblem[] = [];
  const trimmed = title.trim();
  if (trimmed === '' || isBlankText(trimmed))
    problems.push({ field: 'title', problem: 'required' });
  else if (codePoints(trimmed) > MAX_TASK_TITLE_CHARS) {
    problems.push({ field: 'title', problem: 'too_long', max: MAX_TASK_TITLE_CHARS });
  }
  if (codePoints(prompt) > MAX_MESSAGE_CHARS) {
    problems.push({ field: 'prompt', problem: 'too_long', max: MAX_MESSAGE_CHARS });
  }
  return problems;
}

/** A problem the server names by a code the catalog words (`newTask.problem`). */
export function taskFieldProblemOf(code: string | undefined): TaskFieldProblem | undefined {
  return TASK_FIELD_PROBLEMS.find((known) => known === code);
}
