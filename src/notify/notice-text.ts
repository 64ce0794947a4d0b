/**
 * The words of a notice, shared by the text channels (ntfy, Slack). Notices
 * are in English: they are rendered on the server, which does not know the
 * reader's language.
 *
 * Supplied text (a task's title, a question, an option's label) has its bidi
 * controls written out as markers (`showBidiControls`, the web app's
 * notation): a phone obeys them with no isolate around the text, so a title
 * could read as something it does not say.
 */
import { showBidiControls } from '../wire/index.js';
import type { Notice } from './channel.js';

const WHAT: Record<Notice['kind'], string> = {
  question: 'An agent has a question',
  consent: 'An agent asks for permission',
  action: 'An agent asks you to do something',
  form: 'An agent asks you to fill in a form',
};

/** The task's title as a notice shows it. */
export function noticeTaskTitle(notice: Notice): string {
  return showBidiControls(notice.taskTitle);
}

export function noticeTitle(notice: Notice): string {
  return `Clarion: ${noticeTaskTitle(notice)}`;
}

/** One line saying what happened; the question only if the notice carries it. */
export function noticeMessage(notice: Notice): string {
  const what = WHAT[notice.kind];
  const head =
    notice.event === 'reminder'
      ? `Still waiting: ${what.charAt(0).toLowerCase()}${what.slice(1)}`
      : notice.event === 'answered'
        ? `Answered: ${what.charAt(0).toLowerCase()}${what.slice(1)}`
        : notice.event === 'test'
          ? 'A test notification from Clarion'
          : what;
  return notice.question ? `${head}: ${showBidiControls(notice.question)}` : head;
}
