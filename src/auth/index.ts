/** Principals, tokens, sign-in links, accounts and the first admin. */
export {
  allUsers,
  everyWorkspaceFor,
  FIRST_TOKEN_NAME,
  memberView,
  membersOf,
  userView,
  whoIs,
  workspacesOf,
  workspaceView,
  type MemberListResult,
  type MembershipResult,
  type UserPrincipal,
} from './accounts.js';
export {
  AccountService,
  type AccountAnnouncer,
  type AccountServiceDeps,
} from './account-service.js';
export {
  adminTokenProblem,
  ADMIN_TOKEN_MAX_LENGTH,
  ADMIN_TOKEN_MIN_LENGTH,
  BOOTSTRAP_ADMIN_NAME,
  BOOTSTRAP_WORKSPACE_NAME,
  BootstrapError,
  bootstrapAccounts,
  type BootstrapOptions,
  type BootstrapResult,
} from './bootstrap.js';
export {
  ANSWER_LINK_PREFIX,
  issueAnswerLinks,
  redeemAnswerLink,
  spendAnswerLink,
  type AnswerLinkGrant,
  type RedeemedAnswerLink,
} from './answer-links.js';
export {
  responderOf,
  type DecisionSurface,
  type ExternalAgent,
  type Principal,
  type Responder,
  type TokenHolder,
} from './principal.js';
export {
  revokeAgentTokens,
  revokeAgentTokensIn,
  revokeAllAgentTokens,
  revokeIssuedToken,
} from './revocation.js';
export {
  bearerSecret,
  BROWSER_SESSION_TTL_MS,
  generateSecret,
  hashSecret,
  issueToken,
  liveTokensAmong,
  redeemSignIn,
  resolveToken,
  resolveTokenWithin,
  revokeBrowserSession,
  SIGN_IN_TOKEN_TTL_MS,
  TOKEN_PREFIX,
  type CredentialChannel,
  type CredentialLookupBound,
  type IssuedToken,
  type SignInOutcome,
  type TokenRequest,
} from './tokens.js';
export { personalTokensOf, tokenView, type NewTokenResult } from './personal-tokens.js';
export {
  cliSignInLink,
  mintSignInLink,
  SIGN_IN_ORIGINS,
  SIGN_IN_PATH,
  signInLinkFor,
  signInUrl,
  type CliLinkResult,
  type SignInLinkResult,
  type SignInOrigin,
} from './sign-in-links.js';
export { heldBrowserSession } from './browser-sessions.js';
export type { RequestBound } from './request-bound.js';
export {
  openedSignInLink,
  signInLinkIsLive,
  type BrowserSession,
  type LinkSignIn,
  type LinkSignInResult,
} from './sign-in.js';
export { CredentialWatch, type CredentialLease } from './credential-watch.js';
export {
  startSpentCredentialPruning,
  type SpentCredentialPruneOptions,
  type SpentCredentialPruning,
} from './spent-credentials.js';
export { adminStands, callerGone } from './standing.js';
