/**
 * An agent's URL elicitation through the elicitation bridge into the
 * registry, on both stores: it becomes an action a person answers over REST,
 * and the agent's text it is titled by is made storable and cut between
 * whole characters, so the decision's row is kept (PostgreSQL refuses a NUL,
 * and half an emoji in its JSON).
 */
import type { CreateElicitationRequest } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { elicitationHandlers } from '../../src/turns/elicitation-bridge.js';
import { formRequester } from '../../src/turns/index.js';
import { UNNOTED_REFUSALS } from '../../src/turns/refused-requests.js';
import {
  MAX_ACTION_INSTRUCTIONS_CHARS,
  MAX_USER_INPUT_TITLE_CHARS,
  textProblem,
  type ActionView,
} from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { decisionMessages, turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('URL elicitations on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;

  beforeEach(async () => {
    h = await turnsHarness(driver);
    sessionId = (await h.createTask('connect the service')).session.id;
  });

  afterEach(async () => {
    await h.dispose();
  });

  function handlers() {
    return elicitationHandlers({
      store: h.store,
      clarification: () => h.service,
      registry: () => h.turns.userInputs,
      requestForm: formRequester({ store: h.store }, () => h.turns.userInputs),
      refusals: UNNOTED_REFUSALS,
      logger: silentLogger,
    });
  }

  it('a long message cut where an emoji sits keeps the emoji whole: a person’s Done is kept', async () => {
    // The cut falls between the two halves of the emoji, in the title and in the instructions.
    const title = 'a'.repeat(MAX_USER_INPUT_TITLE_CHARS - 1) + '\u{1F600}';
    const message =
      title + 'b'.repeat(MAX_ACTION_INSTRUCTIONS_CHARS - title.length - 1) + '\u{1F600}';
    const reply = handlers().onElicitation(
      sessionId,
      {
        sessionId,
        mode: 'url',
        message,
        url: 'https://example.test/login',
        elicitationId: 'elicitation-2',
      },
      {
        turnId: 'turn-1',
        signal: new AbortController().signal,
        withdrawn: new AbortController().signal,
        ended: new AbortController().signal,
      },
    );
    let view: ActionView | undefined;
    await eventually(() => {
      const found = h.turns.userInputs.snapshot().find((entry) => entry.session_id === sessionId);
      view = found?.kind === 'action' ? found : undefined;
      return view !== undefined;
    });
    expect(textProblem(view?.title ?? '')).toBeUndefined();
    expect(textProblem(view?.instructions ?? '')).toBeUndefined();

    const done = await h.request('POST', `/api/v1/user-inputs/${view?.id ?? ''}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    expect(await reply).toEqual({ action: 'accept' });
  });

  it('a NUL in the agent’s message is dropped: a person’s Done is kept and reaches the agent', async () => {
    const handlers = elicitationHandlers({
      store: h.store,
      clarification: () => h.service,
      registry: () => h.turns.userInputs,
      requestForm: formRequester({ store: h.store }, () => h.turns.userInputs),
      refusals: UNNOTED_REFUSALS,
      logger: silentLogger,
    });
    const request = {
      sessionId,
      mode: 'url',
      message: 'Sign in\u0000 to GitHub',
      url: 'https://example.test/login',
      elicitationId: 'elicitation-1',
    } as unknown as CreateElicitationRequest;
    const reply = handlers.onElicitation(sessionId, request, {
      turnId: 'turn-1',
      signal: new AbortController().signal,
      withdrawn: new AbortController().signal,
      ended: new AbortController().signal,
    });
    let view: ActionView | undefined;
    await eventually(() => {
      const found = h.turns.userInputs.snapshot().find((entry) => entry.session_id === sessionId);
      view = found?.kind === 'action' ? found : undefined;
      return view !== undefined;
    });
    expect(view).toMatchObject({ title: 'Sign in to GitHub', instructions: 'Sign in to GitHub' });

    const done = await h.request('POST', `/api/v1/user-inputs/${view?.id ?? ''}/respond`, {
      decision: 'done',
    });
    expect(done.status).toBe(200);
    expect(await reply).toEqual({ action: 'accept' });
    await eventually(async () =>
      (await decisionMessages(h, sessionId)).some((row) =>
        row.content.endsWith('marked "Sign in to GitHub" done'),
      ),
    );
  });
});
