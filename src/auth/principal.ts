/**
 * Who is calling. A user reaches the tasks of the workspaces they belong to;
 * an agent token reaches only the one session it was minted for (DESIGN §8).
 */
export type Principal =
  | { readonly kind: 'user'; readonly userId: string; readonly isAdmin: boolean }
  | { readonly kind: 'agent'; readonly userId: string; readonly sessionId: string };
