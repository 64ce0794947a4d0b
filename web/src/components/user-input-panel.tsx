/**
 * The session view's user-input cards, in two parts: the requests still in
 * play (`waiting`, which the session view puts in the sheet beside the
 * question, so on a phone they open over the transcript) and the few most
 * recent settled ones (`settled`, docked, so the outcome stays visible; older
 * outcomes are in the transcript through the agent's replies).
 */
import { useTranslation } from 'react-i18next';
import { useUserInputs } from '../app/services.js';
import { requestsOfSession, type UserInputEntry } from '../model/user-inputs.js';
import { UserInputCard } from './user-input-card.js';

const RECENT_SETTLED = 3;

function isOver(entry: UserInputEntry): boolean {
  return entry.retired || entry.view.status === 'settled';
}

/** Whether a request of the session still waits: the sheet opens for it. */
export function useSessionAwaitsInput(sessionId: string): boolean {
  const state = useUserInputs();
  return requestsOfSession(state, sessionId).some((entry) => !isOver(entry));
}

export function UserInputPanel({
  sessionId,
  part,
}: {
  sessionId: string;
  part: 'waiting' | 'settled';
}) {
  const { t } = useTranslation();
  const state = useUserInputs();
  const all = requestsOfSession(state, sessionId);
  const shown =
    part === 'waiting'
      ? all.filter((entry) => !isOver(entry))
      : all.filter(isOver).slice(-RECENT_SETTLED);
  if (shown.length === 0) return null;
  return (
    <section
      className="user-input-panel"
      data-part={part}
      aria-label={t(part === 'waiting' ? 'userInput.panel' : 'userInput.recentTitle')}
    >
      <ul className="user-input-list">
        {shown.map((entry) => (
          <li key={entry.view.id}>
            <UserInputCard entry={entry} />
          </li>
        ))}
      </ul>
    </section>
  );
}
