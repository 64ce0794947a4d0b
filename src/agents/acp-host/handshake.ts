/**
 * Opening an agent's ACP session: `initialize`, `authenticate` when the
 * agent lists an `env_var` method its environment holds, then `session/load`
 * for a session it had before (when it offers to) or `session/new`. Each
 * step's failure is named after its ACP method, and one refused for want of
 * authentication says which variables would do. The caller bounds the whole.
 */
import {
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type ClientConnection,
  type InitializeRequest,
} from '@agentclientprotocol/sdk';
import type { SessionLaunch } from '../runtime.js';
import { agentEnvironment } from './agent-process.js';
import { authenticationHint, envVarAuthMethod } from './authentication.js';
import { acpErrorText } from './failures.js';
import { clarionMcpServers, type StdioBridge } from './mcp-servers.js';

/** ACP's "Authentication required" (`RequestError.authRequired`). */
export const AUTH_REQUIRED_CODE = -32000;

export interface HandshakeOptions {
  /** Whether Clarion takes the agent's elicitations (form and URL). */
  readonly elicitation: boolean;
  readonly clientInfo: { name: string; version: string };
  readonly stdioBridge: StdioBridge;
}

export interface OpenedSession {
  readonly agentSessionId: string;
  /** `session/load` reopened the session the launch named. */
  readonly loaded: boolean;
}

export async function openAgentSession(
  connection: ClientConnection,
  launch: SessionLaunch,
  options: HandshakeOptions,
): Promise<OpenedSession> {
  const initialize: InitializeRequest = {
    protocolVersion: PROTOCOL_VERSION,
    // Objects, not booleans: Claude's adapter disallows AskUserQuestion otherwise.
    clientCapabilities: options.elicitation ? { elicitation: { form: {}, url: {} } } : {},
    clientInfo: options.clientInfo,
  };
  const init = await step('initialize', () =>
    connection.agent.request(methods.agent.initialize, initialize),
  );
  await authenticate(launch, connection, init.authMethods);
  const authHint = authenticationHint(init.authMethods);
  const capabilities = init.agentCapabilities;
  const mcpServers = clarionMcpServers(
    launch.mcp,
    capabilities?.mcpCapabilities,
    options.stdioBridge,
  );
  if (launch.agentSessionId !== undefined && capabilities?.loadSession === true) {
    await step(
      'session/load',
      () =>
        connection.agent.request(methods.agent.session.load, {
          sessionId: launch.agentSessionId ?? '',
          cwd: launch.cwd,
          mcpServers,
        }),
      authHint,
    );
    return { agentSessionId: launch.agentSessionId, loaded: true };
  }
  const created = await step(
    'session/new',
    () => connection.agent.request(methods.agent.session.new, { cwd: launch.cwd, mcpServers }),
    authHint,
  );
  return { agentSessionId: created.sessionId, loaded: false };
}

/**
 * Authenticates with the `env_var` method the agent's environment holds,
 * if it lists one (`authentication.ts`); a start refused for want of one
 * fails saying which variables would do.
 */
async function authenticate(
  launch: SessionLaunch,
  connection: ClientConnection,
  authMethods: unknown,
): Promise<void> {
  const env = agentEnvironment(launch.profile.env, launch.profile.passEnv);
  const methodId = envVarAuthMethod(authMethods, env);
  if (methodId === undefined) return;
  await step('authenticate', () =>
    connection.agent.request(methods.agent.authenticate, { methodId }),
  );
}

/**
 * One handshake request, its failure named after the ACP method; one
 * refused for want of authentication says what would do (`authHint`).
 */
async function step<T>(name: string, request: () => Promise<T>, authHint?: string): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const text = acpErrorText(name, error);
    const refused = error instanceof RequestError && error.code === AUTH_REQUIRED_CODE;
    const hint = refused && authHint !== undefined ? `; ${authHint}` : '';
    throw new Error(`${text}${hint}`, { cause: error });
  }
}
