/**
 * An agent that withdraws its own request (`$/cancel_request`) while its turn
 * goes on, a real ACP agent (`edge-request-fixtures.ts`) on the whole server
 * in this process: a permission request ends at once as a form does, settled
 * `swept` (the web app's "Withdrawn: the agent stopped waiting"), nothing
 * waits on the session, and a person's answer that comes after is refused.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTCOMES } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { waitingItems } from '../support/waiting-items.js';
import { useEdgeRequestServer } from './edge-request-server.js';

const ADMIN_TOKEN = 'withdrawn-requests-admin-token-0123456789';
/** The agent process starts before it asks. */
const AGENT_WAIT_MS = 30_000;

/** Each ask, a person's answer to it, and what its agent hears once it withdrew it. */
const WITHDRAWN = [
  {
    what: 'permission request',
    kind: 'consent',
    asked: 'permission',
    answer: { option_id: 'allow-once' },
    heard: { outcome: { outcome: 'cancelled' } },
  },
  {
    what: 'form',
    kind: 'form',
    asked: 'form',
    answer: { decision: 'decline' },
    heard: { action: 'cancel' },
  },
] as const;

describe('an ACP agent that withdraws its own request', () => {
  const world = useEdgeRequestServer(ADMIN_TOKEN);
  const { api, startTask, sessionOf } = world;
  const { userInputOf } = waitingItems(api, AGENT_WAIT_MS);

  it.each(WITHDRAWN)(
    'ends a withdrawn $what at once, read as withdrawn, and refuses the answer that comes after',
    async ({ kind, asked, answer, heard }) => {
      const running = await world.serve();
      const tag = `withdraw-${asked}`;
      const started = await startTask(`/withdraw ${asked} ${tag}`);
      const request = await userInputOf(started.sessionId, kind);

      writeFileSync(join(world.dir, `${tag}.go`), '');
      await eventually(() => existsSync(join(world.dir, `${tag}-1.json`)), AGENT_WAIT_MS);
      await eventually(() => running.turns.userInputs.get(request.id)?.status === 'settled');
      expect(running.turns.userInputs.get(request.id)).toMatchObject({
        status: 'settled',
        settled_reason: 'swept',
      });
      // Ended by the withdrawal, not by its turn's end: the turn is still running.
      expect(await sessionOf(started)).toMatchObject({ state: 'running', pending_action: null });
      const listed = await api('GET', '/api/v1/user-inputs');
      expect(listed.json.requests).toEqual([]);
      const late = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, answer);
      expect(late.status).toBe(409);
      expect(late.json).toMatchObject({
        code: OUTCOMES.already_settled.wire,
        error: OUTCOMES.already_settled.message,
      });

      writeFileSync(join(world.dir, `${tag}.done`), '');
      await eventually(async () => (await sessionOf(started))?.state === 'idle', AGENT_WAIT_MS);
      const decisions = await api('GET', '/api/v1/decisions');
      expect(decisions.json.decisions).toEqual([]);
      expect(world.heardBy(tag, 1)).toEqual({
        reply: heard,
      });
    },
    60_000,
  );
});
