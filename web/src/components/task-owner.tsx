/**
 * Whose agent works in a task: the person who started it, or whose token an
 * external agent asks with (the task's `created_by`). Two people's agents of
 * one kind (both "Claude Code") look alike without it. Says nothing while
 * the name is unknown, rather than a wrong one.
 */
import { useTranslation } from 'react-i18next';

export interface People {
  /** The reader's user ID, once known: their own agent is "Your agent". */
  me: string | undefined;
  names: ReadonlyMap<string, string>;
}

export function TaskOwner({ owner, people }: { owner: string | null | undefined; people: People }) {
  const { t } = useTranslation();
  if (owner === null || owner === undefined) return null;
  const name = people.names.get(owner);
  if (owner !== people.me && name === undefined) return null;
  return (
    <span className="task-owner muted" data-testid="task-owner" data-owner={owner}>
      {owner === people.me ? t('triage.ownerYou') : t('triage.owner', { name: name ?? '' })}
    </span>
  );
}
