/**
 * An agent's URL elicitation through the elicitation bridge into the
 * registry, on both stores: it becomes an action a person answers over REST,
 * and the agent's text it is titled by is made storable, so the decision's
 * row is kept (PostgreSQL refuses a NUL).
 */
import type { CreateElicitationRequest } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { elicitationHandlers } from '../../src/turns/elicitation-bridge.js';
import { formRequester } from '../../src/turns/index.js';
import { UNNOTED_REFUSALS } from '../../src/turns/refused-requests.js';
import type { ActionView } from '../../src/wire/index.js';
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
