/**
 * The transcript notes about an agent's consent, action or form request its
 * agent never heard a person on: recovery's for one its server lost (it ended
 * unanswered, or a person's decision on it was recorded but the agent's turn
 * never finished after it, so the agent may not have received it), and the
 * note that one was never shown, its agent already waiting on as many as it
 * may or Clarion unable to show it. Worded in the reader's language from the
 * note's metadata; a note this build cannot read (an older one without its
 * cause, a newer server's value) shows the server's own text.
 */
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import {
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  USER_INPUT_REFUSED_TYPE,
  userInputNoteOf,
  userInputRefusedNoteOf,
  type MessageView,
} from '../model/types.js';
import { RelativeTime } from './relative-time.js';

export function UserInputNoteRow({ message }: { message: MessageView }) {
  const { t } = useTranslation();
  const text = wordedNote(t, message);
  return (
    <article
      className="message message-system"
      data-type={message.type}
      data-testid="user-input-note"
      data-worded={text === undefined ? 'server' : 'translated'}
    >
      <span className="message-author">{t('session.author.system')}</span>
      <RelativeTime at={message.created_at} />
      <p className="message-content">{text ?? message.content}</p>
    </article>
  );
}

/** The note in the reader's language; undefined when this build cannot read its metadata. */
function wordedNote(t: TFunction, message: MessageView): string | undefined {
  if (message.type === USER_INPUT_REFUSED_TYPE) {
    const refused = userInputRefusedNoteOf(message.metadata);
    if (!refused) return undefined;
    const what = t(`userInputNote.kind.${refused.kind}`);
    switch (refused.code) {
      case 'unshowable':
        return t('userInputNote.unshowable', {
          what,
          title: refused.title,
          problems: refused.problems.join('; '),
        });
      case 'outside_turn':
        return t('userInputNote.outsideTurn', { what, title: refused.title });
      case 'too_many_open_requests':
        return t('userInputNote.refused', { what, title: refused.title, limit: refused.limit });
    }
  }
  const note = userInputNoteOf(message.metadata);
  if (!note) return undefined;
  const unconfirmed = message.type === USER_INPUT_DECISION_UNCONFIRMED_TYPE;
  return t(unconfirmed ? 'userInputNote.unconfirmed' : 'userInputNote.ended', {
    what: t(`userInputNote.kind.${note.kind}`),
    title: note.title,
    cause: t(`userInputNote.${unconfirmed ? 'unconfirmedCause' : 'endedCause'}.${note.loss}`),
  });
}
