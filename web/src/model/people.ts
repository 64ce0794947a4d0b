/**
 * The People page's rules, apart from React and I/O: who may change a
 * workspace's members, whom an admin can still add, and how a refusal is
 * put to the person.
 */
import type { UserView } from '../../../src/wire/index.js';
import type { ApiFailure, Me } from './api.js';
import type { WorkspaceMember } from './members-api.js';

/**
 * Only admins: the server refuses membership changes to anyone else (403),
 * owners included, so a control the person cannot use is never offered.
 */
export function canManageMembers(me: Me): boolean {
  return me.kind === 'user' && me.user.is_admin;
}

/**
 * An admin, or an owner of the workspace (as its member list says): the
 * server lets these rename it, and refuses a plain member.
 */
export function canRenameWorkspace(
  me: Me | undefined,
  members: readonly WorkspaceMember[] | undefined,
): boolean {
  if (me === undefined || me.kind !== 'user') return false;
  if (me.user.is_admin) return true;
  return (members ?? []).some((member) => member.user_id === me.user.id && member.role === 'owner');
}

/** The users who are not members yet, by name: the choices for "Add member". */
export function addableUsers(
  users: readonly UserView[],
  members: readonly WorkspaceMember[],
): UserView[] {
  const present = new Set(members.map((member) => member.user_id));
  return users
    .filter((user) => !present.has(user.id))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/**
 * A refusal as a catalog key under `people.refused`. The server's own words
 * (English) stay only where they are a reason the catalog cannot know: the
 * workspaces a last owner holds, what is wrong with a name. Any other refusal
 * keeps its failure, for the page to say in its language.
 */
export type Refusal =
  | { readonly key: 'lastOwner' | 'invalid'; readonly error: string }
  | { readonly key: 'forbidden' | 'gone' | 'quota' | 'network' }
  | { readonly key: 'other'; readonly failure: ApiFailure };

type KnownKey = Exclude<Refusal['key'], 'other'>;

/**
 * Every 409 on this page is a workspace's last owner (the person's own
 * account is never offered for deletion): the server names the workspaces,
 * the key says how to fix it.
 */
const REFUSAL_BY_CODE: Readonly<Record<string, KnownKey>> = {
  conflict: 'lastOwner',
  forbidden: 'forbidden',
  not_found: 'gone',
  quota_exceeded: 'quota',
  invalid_request: 'invalid',
  invalid_text: 'invalid',
};

export function refusalOf(failure: ApiFailure): Refusal {
  if (failure.kind === 'network') return { key: 'network' };
  const key = REFUSAL_BY_CODE[failure.code];
  if (key === undefined) return { key: 'other', failure };
  return key === 'lastOwner' || key === 'invalid' ? { key, error: failure.error } : { key };
}
