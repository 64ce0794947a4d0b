/**
 * What HTTP suites against a server (in this process or the built one) do
 * over and over: start a task with a demo-agent prompt, then wait for the
 * question bundle or the user-input request it raises.
 */
import { expect } from 'vitest';
import type { UserInputView } from '../../src/user-input/index.js';
import type { PendingBundle } from '../../src/wire/index.js';
import { eventually } from './clarification-harness.js';
import type { ApiCall } from './in-process-server.js';

const WAIT_MS = 15_000;

/** `waitMs` bounds each wait for an item; a built server spawning its agent may need more. */
export function waitingItems(api: ApiCall, waitMs = WAIT_MS) {
  async function startTask(
    prompt: string,
    title = prompt,
  ): Promise<{ sessionId: string; taskId: string }> {
    const created = await api<{ task: { id: string }; session: { id: string } }>(
      'POST',
      '/api/v1/tasks',
      { title, prompt },
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
    }, waitMs);
    if (!found) throw new Error(`no pending bundle in session ${sessionId}`);
    return found;
  }

  /** The session's user-input request, the first of `kind` when one is named. */
  async function userInputOf(
    sessionId: string,
    kind?: UserInputView['kind'],
  ): Promise<UserInputView> {
    let found: UserInputView | undefined;
    await eventually(async () => {
      const list = await api<{ requests: UserInputView[] }>('GET', '/api/v1/user-inputs');
      found = list.json.requests.find(
        (request) =>
          request.session_id === sessionId && (kind === undefined || request.kind === kind),
      );
      return found !== undefined;
    }, waitMs);
    if (!found) throw new Error(`no ${kind ?? 'user-input'} request in session ${sessionId}`);
    return found;
  }

  /** Starts a task titled `title` and waits for the user-input request its agent raises. */
  async function requestOfTask(
    prompt: string,
    title = prompt,
  ): Promise<{ sessionId: string; taskId: string; request: UserInputView }> {
    const started = await startTask(prompt, title);
    return { ...started, request: await userInputOf(started.sessionId) };
  }

  return { startTask, pendingOf, userInputOf, requestOfTask };
}

export type WaitingItems = ReturnType<typeof waitingItems>;
