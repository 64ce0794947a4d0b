/**
 * The account changes as one service: users invited and deleted, workspaces
 * created and renamed, members added (or their role changed) and removed,
 * personal tokens made and revoked, browser sessions begun over another and
 * ended. Each operation runs its rules (`accounts.ts`, `personal-tokens.ts`,
 * `sign-in.ts`, `browser-sessions.ts`) and, once they committed, announces
 * the change through the one hook it was built with, so every caller (REST
 * today, a CLI or another API tomorrow) changes access, People, tokens and
 * credentials the same way, heard by the same open pages, sockets and calls.
 *
 * Invariants: nothing is announced for a refusal or before its commit; a
 * deleted person's sessions end before their revocation is announced (an
 * agent's wait ends on its question expired, not on its token gone), and a
 * removed member's sessions there before their lost access is; a
 * failed read of whom to tell costs only the notice, never the committed
 * change's reply (a page not told reads again when shown or reconnected).
 */
import { listWorkspaceMembers, type Store, type WorkspaceRecord } from '../store/index.js';
import type { Failure, PersonalTokenKind } from '../wire/index.js';
import {
  addMember,
  createOwnedWorkspace,
  deleteUser,
  inviteUser,
  removeMember,
  renameWorkspace,
  type DeletedUser,
  type MembershipResult,
  type NewUserInput,
  type RemovedMember,
  type NewUserWithToken,
  type UserPrincipal,
} from './accounts.js';
import { endBrowserSession, endOtherBrowserSessions } from './browser-sessions.js';
import {
  createPersonalToken,
  revokePersonalToken,
  type NewTokenResult,
} from './personal-tokens.js';
import type { RequestBound } from './request-bound.js';
import { signInWithLink, type LinkSignIn, type LinkSignInResult } from './sign-in.js';

/**
 * What the rest of the server hears of a committed account change. Its one
 * caller is `AccountService`; the composition wires it to the events hub
 * and, with several replicas, to the wakes of the others.
 */
export interface AccountAnnouncer {
  /** A person's memberships changed (added, removed, role, deleted): who may see what is asked again. */
  accessChanged(userId: string): void;
  /**
   * Users, workspaces or memberships changed (`subjectId`): admins' People
   * pages read again, and those of `members` (a workspace's, who list its members).
   */
  peopleChanged(subjectId: string, members: readonly string[]): void;
  /** A person's API tokens changed: their open Settings read them again. */
  tokensChanged(userId: string): void;
  /**
   * A person's browser sign-in ended, and with it any Web Push channel it
   * turned on (the store's cascade): their other devices' Settings read the
   * channels again.
   */
  notificationsChanged(userId: string): void;
  /**
   * A credential of `userId` ended (a token revoked, a browser session ended,
   * the person deleted): calls and sockets still running with one read it again.
   */
  credentialsEnded(userId: string): void;
}

export interface AccountServiceDeps {
  readonly store: Store;
  readonly announce: AccountAnnouncer;
  /**
   * The live sessions whose agents act for a person deleted, or removed from
   * their tasks' workspace, end saying why (`turns/`' `endSessionsActedFor`),
   * before it is announced.
   */
  readonly endSessionsActedFor: (
    sessionIds: readonly string[],
    why: 'owner_deleted' | 'owner_removed',
  ) => Promise<void>;
}

export class AccountService {
  constructor(private readonly deps: AccountServiceDeps) {}

  /** A new user with a first token and a sign-in link (`inviteUser`); admins' People list them. */
  async inviteUser(
    caller: UserPrincipal,
    input: NewUserInput,
  ): Promise<({ ok: true } & NewUserWithToken) | Failure<'unauthorized'>> {
    const created = await inviteUser(this.deps.store, caller, input);
    if (created.ok) this.deps.announce.peopleChanged(created.user.id, []);
    return created;
  }

  /** Deletes a user (`deleteUser`); their sessions end, then their access and credentials. */
  async deleteUser(
    caller: UserPrincipal,
    userId: string,
  ): Promise<DeletedUser | Failure<'not_found' | 'conflict' | 'unauthorized'>> {
    const deleted = await deleteUser(this.deps.store, caller, userId);
    if (!deleted.ok) return deleted;
    const { announce } = this.deps;
    // Before the revocation is announced: an agent's wait ends on its question expired.
    await this.deps.endSessionsActedFor(deleted.actedFor, 'owner_deleted');
    announce.accessChanged(userId);
    announce.credentialsEnded(userId);
    announce.peopleChanged(userId, deleted.coMembers);
    return deleted;
  }

  /** A new workspace owned by its admin (`createOwnedWorkspace`). */
  async createWorkspace(
    owner: UserPrincipal,
    name: string,
  ): Promise<{ ok: true; workspace: WorkspaceRecord } | Failure<'unauthorized'>> {
    const created = await createOwnedWorkspace(this.deps.store, owner, name);
    if (!created.ok) return created;
    // Its creator is its first owner: their open tabs hear of it as of any membership.
    this.deps.announce.accessChanged(owner.userId);
    // Other admins manage it too, members or not: their People pages list it.
    this.deps.announce.peopleChanged(created.workspace.id, []);
    return created;
  }

  /** Renames a workspace (`renameWorkspace`), for an admin or one of its owners. */
  async renameWorkspace(
    principal: UserPrincipal,
    workspaceId: string,
    name: string,
  ): Promise<
    { ok: true; workspace: WorkspaceRecord } | Failure<'not_found' | 'forbidden' | 'unauthorized'>
  > {
    const renamed = await renameWorkspace(this.deps.store, principal, workspaceId, name);
    if (!renamed.ok) return renamed;
    // Every member's open tabs name it: the same signal as a change of membership.
    for (const userId of await this.membersOf(renamed.workspace.id)) {
      this.deps.announce.accessChanged(userId);
    }
    this.deps.announce.peopleChanged(renamed.workspace.id, []);
    return renamed;
  }

  /** Adds a member or changes its role (`addMember`); a repeat finds it in place. */
  async addMember(
    caller: UserPrincipal,
    input: { workspaceId: string; userId: string; role?: 'member' | 'owner' | undefined },
  ): Promise<MembershipResult> {
    const result = await addMember(this.deps.store, caller, input);
    if (!result.ok) return result;
    this.deps.announce.accessChanged(result.member.user_id);
    await this.membersChanged(result.member.workspace_id);
    return result;
  }

  /**
   * Removes a member (`removeMember`); a workspace keeps an owner. The
   * agents of the tasks they created there stop, their sessions ended, then
   * their access is announced.
   */
  async removeMember(
    caller: UserPrincipal,
    workspaceId: string,
    userId: string,
  ): Promise<RemovedMember | Failure<'not_found' | 'conflict' | 'unauthorized'>> {
    const removed = await removeMember(this.deps.store, caller, workspaceId, userId);
    if (!removed.ok) return removed;
    // Before their access is announced, as on a deletion: an agent's wait ends on its question expired.
    await this.deps.endSessionsActedFor(removed.actedFor, 'owner_removed');
    this.deps.announce.accessChanged(userId);
    await this.membersChanged(workspaceId);
    return removed;
  }

  /** A personal token (`createPersonalToken`): its owner's open Settings list it. */
  async createToken(
    owner: UserPrincipal,
    request: { readonly name: string; readonly kind: PersonalTokenKind },
  ): Promise<NewTokenResult> {
    const created = await createPersonalToken(this.deps.store, owner, request);
    if (created.ok) this.deps.announce.tokensChanged(owner.userId);
    return created;
  }

  /** Revokes a personal token (`revokePersonalToken`): what runs with it reads it again. */
  async revokeToken(
    owner: UserPrincipal,
    tokenId: string,
    request: RequestBound,
  ): Promise<{ ok: true } | Failure<'not_found'>> {
    const revoked = await revokePersonalToken(this.deps.store, owner, tokenId, request);
    if (!revoked.ok) return revoked;
    this.deps.announce.credentialsEnded(owner.userId);
    this.deps.announce.tokensChanged(owner.userId);
    return revoked;
  }

  /** Signs a browser in with a link (`signInWithLink`); the session it replaced has ended. */
  async signIn(link: LinkSignIn): Promise<LinkSignInResult> {
    const signedIn = await signInWithLink(this.deps.store, link);
    if (signedIn.ok && signedIn.replaced !== undefined) {
      this.deps.announce.credentialsEnded(signedIn.replaced);
      this.deps.announce.notificationsChanged(signedIn.replaced);
    }
    return signedIn;
  }

  /** Ends the browser session `secret` signs in (`endBrowserSession`); true when it existed. */
  async signOut(userId: string, secret: string, request: RequestBound): Promise<boolean> {
    const ended = await endBrowserSession(this.deps.store, secret, request);
    if (ended) this.browserSessionsEnded(userId);
    return ended;
  }

  /** Ends `userId`'s other browser sessions (`endOtherBrowserSessions`); how many. */
  async signOutOthers(userId: string, keepSecret: string, request: RequestBound): Promise<number> {
    const ended = await endOtherBrowserSessions(this.deps.store, userId, keepSecret, request);
    // Their events sockets close now, on every replica, as after a sign-out.
    if (ended > 0) this.browserSessionsEnded(userId);
    return ended;
  }

  private browserSessionsEnded(userId: string): void {
    this.deps.announce.credentialsEnded(userId);
    this.deps.announce.notificationsChanged(userId);
  }

  /** A workspace's members list each other on People: they hear of a change among them too. */
  private async membersChanged(workspaceId: string): Promise<void> {
    this.deps.announce.peopleChanged(workspaceId, await this.membersOf(workspaceId));
  }

  /**
   * Who belongs to the workspace now. The change is committed whatever this
   * read does: a failed one leaves those pages to read again when shown.
   */
  private async membersOf(workspaceId: string): Promise<string[]> {
    const members = await listWorkspaceMembers(this.deps.store, workspaceId).catch(() => []);
    return members.map((member) => member.user_id);
  }
}
