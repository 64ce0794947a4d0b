/**
 * The session view's user-input cards: every request of the session still in
 * play, and the few most recent settled ones so the outcome stays visible
 * (older outcomes are in the transcript through the agent's replies).
 */
import { useTranslation } from 'react-i18next';
import { useUserInputs } from '../app/services.js';
import { requestsOfSession } from '../model/user-inputs.js';
import { UserInputCard } from './user-input-card.js';

const RECENT_SETTLED = 3;

export function UserInputPanel({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const state = useUserInputs();
  const all = requestsOfSession(state, sessionId);
  const over = all.filter((entry) => entry.retired || entry.view.status === 'settled');
  const recent = new Set(over.slice(-RECENT_SETTLED).map((entry) => entry.view.id));
  const shown = all.filter(
    (entry) => recent.has(entry.view.id) || !(entry.retired || entry.view.status === 'settled'),
  );
  if (shown.length === 0) return null;
  return (
    <section className="user-input-panel" aria-label={t('userInput.panel')}>
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
