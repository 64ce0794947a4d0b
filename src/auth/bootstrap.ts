/**
 * Accounts at start-up. A database without users gets an admin named `admin`
 * and a workspace `Default` holding it; `CLARION_ADMIN_TOKEN`, when set, is
 * bound to the oldest admin as its `preset` token (one row, however many
 * restarts); and every start issues a fresh one-time sign-in link. Running it
 * again changes nothing but the new link and the removal of spent tokens.
 *
 * A start also revokes what no longer has a holder: a preset token whose
 * value is no longer configured (rotating or unsetting `CLARION_ADMIN_TOKEN`
 * ends the old one), the unused sign-in links earlier starts printed (links
 * minted since, in Settings or by `clarion sign-in-link`, stay), and every
 * agent token (no agent of an earlier run is still running; see
 * `revocation.ts`) but those of sessions another live replica runs.
 */
import {
  createUser,
  createWorkspace,
  ensureWorkspaceMember,
  firstAdmin,
  hasAnyUser,
  type SessionScope,
  type UserRecord,
} from '../store/index.js';
import type { Store } from '../store/index.js';
import { bindToken, deleteSpentTokens, deleteTokensOfKind } from '../store/index.js';
import { revokeAgentTokensIn } from './revocation.js';
import { revokeStartUpLinks, SIGN_IN_ORIGINS } from './sign-in-links.js';
import { hashSecret, issueToken } from './tokens.js';

export const BOOTSTRAP_ADMIN_NAME = 'admin';
export const BOOTSTRAP_WORKSPACE_NAME = 'Default';
/** A shorter admin token is guessable; a longer one is not a header value we accept. */
export const ADMIN_TOKEN_MIN_LENGTH = 16;
export const ADMIN_TOKEN_MAX_LENGTH = 512;

export class BootstrapError extends Error {
  constructor(
    readonly code: 'admin_token_invalid',
    message: string,
  ) {
    super(message);
    this.name = 'BootstrapError';
  }
}

/** Why `value` cannot be an admin token, or `undefined` when it can; for config validation. */
export function adminTokenProblem(value: string): string | undefined {
  if (value.length < ADMIN_TOKEN_MIN_LENGTH) {
    return `CLARION_ADMIN_TOKEN must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters`;
  }
  if (value.length > ADMIN_TOKEN_MAX_LENGTH) {
    return `CLARION_ADMIN_TOKEN must be at most ${ADMIN_TOKEN_MAX_LENGTH} characters`;
  }
  if (/\s/.test(value)) return 'CLARION_ADMIN_TOKEN must not contain whitespace';
  return undefined;
}

export interface BootstrapOptions {
  readonly adminToken?: string | undefined;
  /** Whose agent tokens this start revokes: all, unless other replicas run agents (issue 16). */
  readonly agentTokens?: SessionScope;
  /**
   * Other replicas run on this database now: the start-up links they printed
   * stay (they expire), where a start alone ends every earlier start's.
   */
  readonly othersRunning?: boolean;
}

export interface BootstrapResult {
  readonly admin: UserRecord;
  /** True when this run created the admin (and, on an empty database, the workspace). */
  readonly createdAdmin: boolean;
  /** True when this run inserted or repaired the admin token row. */
  readonly adminTokenChanged: boolean;
  /** The one-time sign-in secret for `admin`; print it as `/auth/sign-in?token=…`. */
  readonly signInSecret: string;
}

/** The lock key bootstrapping servers serialize on (a session's writers' lock, by another name). */
const BOOTSTRAP_LOCK = 'clarion:bootstrap';

export async function bootstrapAccounts(
  store: Store,
  options: BootstrapOptions = {},
): Promise<BootstrapResult> {
  const { adminToken } = options;
  if (adminToken !== undefined) {
    const problem = adminTokenProblem(adminToken);
    if (problem !== undefined) throw new BootstrapError('admin_token_invalid', problem);
  }
  // Two servers starting at once must not both find no admin and both create one.
  return store.transaction(
    async (tx) => {
      let admin = await firstAdmin(tx);
      const createdAdmin = admin === undefined;
      if (admin === undefined) {
        // Users without any admin happen only if someone demoted them all in
        // the database; a new `admin` is then the way back in, without a
        // workspace because the existing ones have their members.
        const fresh = !(await hasAnyUser(tx));
        admin = await createUser(tx, { name: BOOTSTRAP_ADMIN_NAME, isAdmin: true });
        if (fresh) {
          const workspace = await createWorkspace(tx, { name: BOOTSTRAP_WORKSPACE_NAME });
          await ensureWorkspaceMember(tx, {
            workspaceId: workspace.id,
            userId: admin.id,
            role: 'owner',
          });
        }
      }

      let adminTokenChanged = false;
      const presetHash = adminToken === undefined ? undefined : hashSecret(adminToken);
      if (presetHash !== undefined) {
        const bound = await bindToken(tx, {
          userId: admin.id,
          kind: 'preset',
          tokenHash: presetHash,
        });
        adminTokenChanged = bound.changed;
      }
      await deleteTokensOfKind(tx, 'preset', presetHash);
      if (options.othersRunning !== true) await revokeStartUpLinks(tx);
      await revokeAgentTokensIn(tx, options.agentTokens ?? { kind: 'all' });
      await deleteSpentTokens(tx);
      const signIn = await issueToken(tx, {
        kind: 'sign_in',
        userId: admin.id,
        name: SIGN_IN_ORIGINS.startUp,
      });
      return { admin, createdAdmin, adminTokenChanged, signInSecret: signIn.secret };
    },
    { lockSession: BOOTSTRAP_LOCK },
  );
}
