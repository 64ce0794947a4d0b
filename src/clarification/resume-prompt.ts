/**
 * The prompt that resumes an agent after a detached answer (pure). It quotes
 * each question and the chosen option labels and custom text verbatim, so the
 * agent reads what the person saw and said.
 */
import type { Answer } from './outcome.js';
import type { Question } from './questions.js';

function describeAnswer(question: Question, answer: Answer | undefined): string {
  if (!answer) return '(no answer)';
  const labels = answer.selected_options.map(
    (optionId) =>
      question.options.find((option) => option.option_id === optionId)?.label ?? optionId,
  );
  const parts = [];
  if (labels.length > 0) parts.push(`selected ${labels.map((label) => `"${label}"`).join(', ')}`);
  if (answer.custom_text !== '') parts.push(`wrote "${answer.custom_text}"`);
  return parts.length > 0 ? parts.join(' and ') : '(no answer)';
}

export function resumePrompt(questions: readonly Question[], answers: readonly Answer[]): string {
  const byId = new Map(answers.map((answer) => [answer.question_id, answer]));
  const lines = ['You previously asked the user, and they have now answered:'];
  questions.forEach((question, index) => {
    lines.push(`Q${index + 1}: ${question.prompt}`);
    lines.push(`A${index + 1}: The user ${describeAnswer(question, byId.get(question.id))}.`);
  });
  lines.push('Please continue with this information.');
  return lines.join('\n');
}
