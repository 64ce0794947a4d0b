/**
 * Accounts on the wire: who am I, users, workspaces and their members,
 * sign-in links for another device or person, and a person's own API tokens.
 */
import { z } from 'zod';
import { timestamp, visibleText } from './common.js';
import {
  MAX_ACCOUNT_NAME_CHARS,
  MAX_RECORD_ID_CHARS,
  MAX_SIGN_IN_TOKEN_CHARS,
  MAX_TOKEN_NAME_CHARS,
} from './limits.js';

const name = visibleText(MAX_ACCOUNT_NAME_CHARS);

export const newUserBody = z
  .strictObject({ name, is_admin: z.boolean().optional() })
  .meta({ id: 'NewUserBody' });
export const newWorkspaceBody = z.strictObject({ name }).meta({ id: 'NewWorkspaceBody' });
/** The same name rules as a new workspace's. */
export const renameWorkspaceBody = z.strictObject({ name }).meta({ id: 'RenameWorkspaceBody' });
/**
 * `GET /api/v1/workspaces`: the caller's own workspaces, or with `scope=all`
 * (admins only) every workspace, since an admin manages those they are not in.
 */
export const workspaceListQuery = z.strictObject({
  scope: z
    .enum(['all'])
    .optional()
    .describe('`all`: every workspace, each saying whether you belong to it (admin)'),
});
export const newMemberBody = z
  .strictObject({
    user_id: z.string().min(1).max(MAX_RECORD_ID_CHARS),
    role: z.enum(['member', 'owner']).optional(),
  })
  .meta({ id: 'NewMemberBody' });

export const userView = z
  .object({ id: z.string(), name: z.string(), is_admin: z.boolean(), created_at: timestamp })
  .meta({ id: 'User' });
export type UserView = z.infer<typeof userView>;

export const workspaceView = z
  .object({ id: z.string(), name: z.string(), created_at: timestamp })
  .meta({ id: 'Workspace' });
export type WorkspaceView = z.infer<typeof workspaceView>;

export const memberView = z
  .object({
    workspace_id: z.string(),
    user_id: z.string(),
    role: z.enum(['member', 'owner']),
    created_at: timestamp,
  })
  .meta({ id: 'Member' });
export type MemberView = z.infer<typeof memberView>;

const meUser = z.object({ id: z.string(), name: z.string(), is_admin: z.boolean() });
export const meReply = z.union([
  z.object({ user: meUser, kind: z.literal('user') }),
  z.object({ user: meUser, kind: z.literal('agent'), session: z.object({ id: z.string() }) }),
]);

export const newUserReply = z.object({
  user: userView,
  token: z.string().describe('A bearer token, shown only this once'),
  sign_in_url: z.string().describe('A one-time link that signs the new user in to the web app'),
  sign_in_expires_at: timestamp.describe('When `sign_in_url` stops working if still unused'),
});
export const userListReply = z.object({ users: z.array(userView) });
export const workspaceReply = z.object({ workspace: workspaceView });
export const workspaceListReply = z.object({
  workspaces: z.array(
    workspaceView.extend({
      member: z
        .boolean()
        .optional()
        .describe('With `scope=all` only: whether you belong to this workspace'),
    }),
  ),
});
export type WorkspaceListReply = z.infer<typeof workspaceListReply>;
export const memberReply = z.object({ member: memberView });
export const memberListReply = z.object({
  members: z.array(memberView.extend({ user_name: z.string() })),
});

// ---------------------------------------------------------------- sign-in links
/** Empty for a link for oneself; an admin may name another user. */
export const signInLinkBody = z
  .strictObject({ user_id: z.string().min(1).max(MAX_RECORD_ID_CHARS).optional() })
  .meta({ id: 'SignInLinkBody' });
export type SignInLinkBody = z.infer<typeof signInLinkBody>;
export const signInLinkReply = z
  .object({
    url: z.string().describe('Opens a browser session once; keep it out of shared places'),
    expires_at: timestamp,
  })
  .meta({ id: 'SignInLink' });
export type SignInLinkReply = z.infer<typeof signInLinkReply>;

/**
 * `POST /api/v1/auth/sign-in`: the web app redeems a link's secret. Without
 * `switch_account` a browser signed in as someone else is refused
 * (`signed_in_as_other`) and the link stays unspent; the person says whether
 * to switch, and only then does the app send it again with the flag.
 */
export const signInBody = z
  .strictObject({
    token: z.string().min(1).max(MAX_SIGN_IN_TOKEN_CHARS),
    switch_account: z
      .boolean()
      .optional()
      .describe('The person chose to leave the account this browser is signed in as'),
  })
  .meta({ id: 'SignInBody' });
export type SignInBody = z.infer<typeof signInBody>;

const signInPerson = z.object({ id: z.string(), name: z.string() });
export type SignInPerson = z.infer<typeof signInPerson>;

export const signInReply = z
  .object({ user: signInPerson.describe('Who this browser is signed in as now') })
  .meta({ id: 'SignIn' });
export type SignInReply = z.infer<typeof signInReply>;

export const signOutOthersReply = z
  .object({
    ended: z
      .number()
      .int()
      .nonnegative()
      .describe("How many of the caller's other browser sessions this ended"),
  })
  .meta({ id: 'SignOutOthers' });
export type SignOutOthersReply = z.infer<typeof signOutOthersReply>;

/** The `details` of a 409 `signed_in_as_other`: both people, so the app can ask by name. */
export const signedInAsOtherDetails = z
  .object({ signed_in_as: signInPerson, link_for: signInPerson })
  .meta({ id: 'SignedInAsOther' });
export type SignedInAsOtherDetails = z.infer<typeof signedInAsOtherDetails>;

/** The `details` of a 409 `session_changed`: whom the browser's cookie signs in now. */
export const sessionChangedDetails = z
  .object({ signed_in_as: signInPerson })
  .meta({ id: 'SessionChanged' });
export type SessionChangedDetails = z.infer<typeof sessionChangedDetails>;

// ---------------------------------------------------------------- personal API tokens
/**
 * `user`: acts as the person, everywhere. `agent`: for an agent the person
 * runs themselves (an MCP client such as Claude Code): it asks and waits
 * through `/mcp` and never decides; every other route refuses it.
 */
export const personalTokenKind = z.enum(['user', 'agent']);
export type PersonalTokenKind = z.infer<typeof personalTokenKind>;
export const newTokenBody = z
  .strictObject({
    name: visibleText(MAX_TOKEN_NAME_CHARS),
    kind: personalTokenKind.default('user'),
  })
  .meta({ id: 'NewTokenBody' });
/** A token as its owner sees it later: never its secret. */
export const tokenView = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: personalTokenKind,
    created_at: timestamp,
    last_used_at: timestamp.nullable().describe('Approximate: updated at most once a minute'),
  })
  .meta({ id: 'ApiToken' });
export type TokenView = z.infer<typeof tokenView>;
export const newTokenReply = z.object({
  token: tokenView,
  secret: z.string().describe('The bearer secret, shown only this once'),
});
export type NewTokenReply = z.infer<typeof newTokenReply>;
export const tokenListReply = z.object({ tokens: z.array(tokenView) });
export type TokenListReply = z.infer<typeof tokenListReply>;
