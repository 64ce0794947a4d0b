/**
 * What HTTP suites against an in-process server do over and over: start a
 * task with a demo-agent prompt, then wait for the question bundle or the
 * user-input request it raises.
 */
import { expect } from 'vitest';
import type { UserInputView } from '../../src/user-input/index.js';
import type { PendingBundle } from '../../src/wire/index.js';
import { eventually } from './clarification-harness.js';
import type { ApiCall } from './in-process-server.js';

const WAIT_MS = 15_000;

export function waitingItems(api: ApiCall) {
  async function startTask(prompt: string): Promise<{ sessionId: string; taskId: string }> {
    const created = await api<{ task: { id: string }; session: { id: string } }>(
      'POST',
      '/api/v1/tasks',
      { title: prompt, prompt },
    );
    expect(created.status).toBe(201);
    return { sessionId: created.json.session.id, taskId: created.json.task.id };
  }

  async function pendingOf(sessionId: string): Promise<PendingBundle> {
    let found: PendingBundle | undefined;
    await eventually(async () => {
      const list = await api<{ bundles: PendingBundle[] }>('GET', '/api/v1/pending');
      found = list.json.bundles.find((bundle) => bundle.session_id === sessionId);
      return found !== undefined;
    }, WAIT_MS);
    if (!found) throw new Error(`no pending bundle in session ${sessionId}`);
    return found;
  }

  async function userInputOf(sessionId: string): Promise<UserInputView> {
    let found: UserInputView | undefined;
    await eventually(async () => {
      const list = await api<{ requests: UserInputView[] }>('GET', '/api/v1/user-inputs');
      found = list.json.requests.find((request) => request.session_id === sessionId);
      return found !== undefined;
    }, WAIT_MS);
    if (!found) throw new Error(`no user-input request in session ${sessionId}`);
    return found;
  }

  return { startTask, pendingOf, userInputOf };
}

export type WaitingItems = ReturnType<typeof waitingItems>;
