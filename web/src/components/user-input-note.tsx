/**
 * The transcript notes recovery writes about an agent's consent, action or
 * form request its server lost: it ended unanswered, or a person's decision
 * on it was recorded but the agent's turn never finished after it (so the
 * agent may not have received it). Worded in the reader's language from the
 * note's metadata; a note this build cannot read (an older one without its
 * cause, a newer server's value) shows the server's own text.
 */
import { useTranslation } from 'react-i18next';
import {
  USER_INPUT_DECISION_UNCONFIRMED_TYPE,
  userInputNoteOf,
  type MessageView,
} from '../model/types.js';
import { RelativeTime } from './relative-time.js';

export function UserInputNoteRow({ message }: { message: MessageView }) {
  const { t } = useTranslation();
  const note = userInputNoteOf(message.metadata);
  const unconfirmed = message.type === USER_INPUT_DECISION_UNCONFIRMED_TYPE;
  const text = note
    ? t(unconfirmed ? 'userInputNote.unconfirmed' : 'userInputNote.ended', {
        what: t(`userInputNote.kind.${note.kind}`),
        title: note.title,
        cause: t(`userInputNote.${unconfirmed ? 'unconfirmedCause' : 'endedCause'}.${note.loss}`),
      })
    : message.content;
  return (
    <article
      className="message message-system"
      data-type={message.type}
      data-testid="user-input-note"
      data-worded={note ? 'translated' : 'server'}
    >
      <span className="message-author">{t('session.author.system')}</span>
      <RelativeTime at={message.created_at} />
      <p className="message-content">{text}</p>
    </article>
  );
}
