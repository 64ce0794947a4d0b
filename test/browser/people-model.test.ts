/** The People page's rules: who may change members, whom an admin can add, what a refusal says. */
import { describe, expect, it } from 'vitest';
import type { ApiFailure, Me } from '../../web/src/model/api.js';
import type { WorkspaceMember } from '../../web/src/model/members-api.js';
import {
  addableUsers,
  canManageMembers,
  canRenameWorkspace,
  refusalOf,
} from '../../web/src/model/people.js';

const user = (id: string, name: string) => ({
  id,
  name,
  is_admin: false,
  created_at: '2026-01-01T00:00:00.000000000Z',
});

const member = (userId: string, role: 'owner' | 'member'): WorkspaceMember => ({
  workspace_id: 'w',
  user_id: userId,
  user_name: userId,
  role,
  created_at: '2026-01-01T00:00:00.000000000Z',
});

const refused = (status: number, code: string, error = 'why'): ApiFailure => ({
  ok: false,
  kind: 'http',
  status,
  code,
  error,
});

describe('who may change a workspace’s members', () => {
  const me = (isAdmin: boolean, kind = 'user'): Me => ({
    user: { id: 'u', name: 'Ann', is_admin: isAdmin },
    kind,
  });

  it('is an admin person, as the server allows; never a plain person or an agent', () => {
    expect(canManageMembers(me(true))).toBe(true);
    expect(canManageMembers(me(false))).toBe(false);
    expect(canManageMembers(me(true, 'agent'))).toBe(false);
  });

  it('renames: an admin, or an owner as the member list says; never a plain member', () => {
    expect(canRenameWorkspace(me(true), undefined)).toBe(true);
    expect(canRenameWorkspace(me(false), [member('u', 'owner')])).toBe(true);
    expect(canRenameWorkspace(me(false), [member('u', 'member'), member('v', 'owner')])).toBe(
      false,
    );
    expect(canRenameWorkspace(me(false), undefined)).toBe(false);
    expect(canRenameWorkspace(me(true, 'agent'), [member('u', 'owner')])).toBe(false);
    expect(canRenameWorkspace(undefined, [member('u', 'owner')])).toBe(false);
  });
});

describe('whom an admin can add', () => {
  it('offers the users who are not members yet, by name', () => {
    const users = [user('3', 'carol'), user('1', 'alice'), user('2', 'Bob'), user('4', 'dave')];
    const members = [member('1', 'owner'), member('4', 'member')];
    expect(addableUsers(users, members).map((candidate) => candidate.name)).toEqual([
      'Bob',
      'carol',
    ]);
  });

  it('offers nobody when everyone is in', () => {
    expect(addableUsers([user('1', 'alice')], [member('1', 'owner')])).toEqual([]);
  });
});

describe('what a refusal says', () => {
  it('reads a 409 as a workspace’s last owner, keeping the server’s words naming it', () => {
    const error = '"team" would be left without an owner: make another member an owner first';
    expect(refusalOf(refused(409, 'conflict', error))).toEqual({ key: 'lastOwner', error });
  });

  it('tells apart not allowed, already changed, too many links, bad input and no connection', () => {
    expect(refusalOf(refused(403, 'forbidden')).key).toBe('forbidden');
    expect(refusalOf(refused(404, 'not_found')).key).toBe('gone');
    expect(refusalOf(refused(429, 'quota_exceeded')).key).toBe('quota');
    expect(refusalOf(refused(400, 'invalid_request')).key).toBe('invalid');
    expect(refusalOf(refused(400, 'invalid_text')).key).toBe('invalid');
    // The browser's words for a lost connection are never kept: the page says it.
    expect(refusalOf({ ok: false, kind: 'network', error: 'offline' })).toEqual({
      key: 'network',
    });
    expect(refusalOf(refused(500, 'internal', 'boom'))).toEqual({
      key: 'other',
      failure: refused(500, 'internal', 'boom'),
    });
  });
});
