/**
 * `request_user_action`: an agent asks the person to do something outside
 * (connect a service, sign a form) and waits for Done or Skip. The answer
 * also arms a follow-up message, sent for the person when the agent's turn
 * ends (DESIGN §7). Only an agent's own session can ask.
 *
 * An agent Clarion runs that is killed while it waits closes the call's
 * connection before its exit is seen: that close only hands the request to
 * its turn's end (`connectionLost`), which says the agent exited, as for a
 * permission request or a form. An agent run elsewhere has no such end: its
 * closed connection sweeps the request at once.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  failure,
  requestUserActionInput,
  requestUserActionOutput,
  type ActionOutput,
} from '../../wire/index.js';
import { getSession } from '../../store/index.js';
import type { Store } from '../../store/index.js';
import type { UserInputRegistry } from '../../user-input/index.js';
import type { BoundCall, ToolExtra } from './call-context.js';
import type { CheckedTools } from './checked-tools.js';
import { withProgress } from './progress.js';
import { revokedResult, toolFailure, toolResult } from './results.js';

export interface ActionToolDeps {
  store: Store;
  userInputs: UserInputRegistry;
  progress: Parameters<typeof withProgress>[1];
}

export function registerActionTool(
  server: CheckedTools,
  deps: ActionToolDeps,
  authenticated: (
    extra: ToolExtra,
    body: (caller: BoundCall) => Promise<CallToolResult>,
  ) => Promise<CallToolResult>,
): void {
  server.registerTool(
    'request_user_action',
    {
      title: 'Ask the person to do something',
      description:
        'Ask the person to do something outside this conversation and wait until they press ' +
        "Done or Skip. Returns status 'done' or 'skipped' (with the person's reason, if they gave one), or 'expired' when nobody answered.",
      inputSchema: requestUserActionInput,
      outputSchema: requestUserActionOutput,
    },
    (args, extra) =>
      authenticated(extra, async (call) => {
        const { holder, principal, credential } = call;
        if (principal.kind !== 'agent') {
          return toolFailure(
            failure('forbidden', 'only an agent inside a Clarion session can ask this'),
          );
        }
        const session = await getSession(deps.store, principal.sessionId);
        if (!session) return toolFailure(failure('not_found', 'session not found'));
        const created = deps.userInputs.request({
          kind: 'action',
          sessionId: session.id,
          taskId: session.task_id,
          title: args.title,
          instructions: args.instructions,
          url: args.url ?? null,
          ...(holder.kind === 'agent'
            ? { signal: call.withdrawn, connectionLost: call.connection }
            : { signal: call.signal }),
        });
        if (!created.ok) return toolFailure(created);
        const outcome = await withProgress(extra, deps.progress, () => created.outcome);
        if (outcome.kind === 'decided') {
          const decided: ActionOutput = {
            status: outcome.decision === 'done' ? 'done' : 'skipped',
            ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
            request_id: created.id,
          };
          return toolResult(decided);
        }
        // Withdrawn because its token was: the agent hears that, not that nobody answered.
        if (credential.revoked.aborted) return revokedResult();
        const reason = outcome.kind === 'refused' ? outcome.reason : 'unexpected';
        const expired: ActionOutput = { status: 'expired', reason, request_id: created.id };
        return toolResult(expired);
      }),
  );
}
