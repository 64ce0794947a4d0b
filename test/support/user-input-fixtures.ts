/**
 * The registry's unit tests' common inputs: a person, a consent of the demo
 * agent's shell tool (allow once, always, reject) and an action with a link;
 * and an agent's ACP permission request as the bridge receives it.
 */
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type {
  ActionRequestInput,
  ConsentRequestInput,
} from '../../src/user-input/request-input.js';
import type { Responder } from '../../src/user-input/types.js';

export const ADA: Responder = { user_id: 'user-1', name: 'Ada', surface: 'web' };

/** An agent asks to run `title` in `sessionId`: allow once or reject. */
export const permissionRequest = (
  sessionId: string,
  title = 'npm publish',
): RequestPermissionRequest => ({
  sessionId,
  toolCall: { toolCallId: 'toolu_01', title, kind: 'execute', status: 'pending' },
  options: [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ],
});

/** Lets queued promise reactions (admission attempts, rule lookups, kept decisions) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

export const consentInput = (
  overrides: Partial<ConsentRequestInput> = {},
): ConsentRequestInput => ({
  kind: 'consent',
  sessionId: 'session-1',
  taskId: 'task-1',
  profile: 'demo',
  toolKey: 'execute',
  command: 'Run npm test',
  title: 'Run npm test',
  toolCallId: null,
  options: [
    { option_id: 'allow', label: 'Allow', kind: 'allow_once' },
    { option_id: 'always', label: 'Always allow', kind: 'allow_always' },
    { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
  ],
  ...overrides,
});

export const actionInput = (overrides: Partial<ActionRequestInput> = {}): ActionRequestInput => ({
  kind: 'action',
  sessionId: 'session-1',
  taskId: 'task-1',
  title: 'Connect GitHub',
  instructions: 'Open the link and authorise Clarion.',
  url: 'https://example.test/connect',
  ...overrides,
});
