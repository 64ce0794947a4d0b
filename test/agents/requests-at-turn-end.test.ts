/**
 * A request that arrives as its turn ends, a real ACP agent
 * (`edge-request-fixtures.ts`) on the whole server in this process: a pause
 * point holds the request still opening (its copy not yet kept) while the
 * turn ends and that end settles the request that was open. Released, the
 * late one ends too, as it opens: its agent hears `cancelled`, nothing waits
 * on the idle session and nobody is left to decide it. A permission request
 * and a form of the turn alike. A link (URL elicitation) outlives a normal
 * end of its turn instead: opened late, it is as one that end found open,
 * so the person's Done also comes to the agent as a follow-up message.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { armPause, type ArmedPause } from '../../src/support/failpoints.js';
import { eventually } from '../support/clarification-harness.js';
import { useEdgeRequestServer } from './edge-request-server.js';

const ADMIN_TOKEN = 'requests-at-turn-end-admin-token-0123456789';
/** The agent process starts before it asks. */
const AGENT_WAIT_MS = 30_000;
/** The pause lets the request go by itself after this, should the test never release it. */
const PAUSE_BOUND_MS = 40_000;

/** Each ask, and what its agent hears once its turn's end ended it. */
const ASKS = [
  {
    what: 'permission request',
    kind: 'consent',
    asked: 'permission',
    heard: { outcome: { outcome: 'cancelled' } },
  },
  { what: 'form', kind: 'form', asked: 'form', heard: { action: 'cancel' } },
] as const;

describe('a request still opening as its turn ends', () => {
  const world = useEdgeRequestServer(ADMIN_TOKEN);
  const { api, startTask, sessionOf, heardBy } = world;
  let pause: ArmedPause | undefined;

  afterEach(() => {
    pause?.release();
    pause = undefined;
  });

  async function listed(sessionId: string): Promise<{ id: string; kind: string }[]> {
    const list = await api('GET', '/api/v1/user-inputs');
    return (list.json.requests as { id: string; kind: string; session_id: string }[]).filter(
      (request) => request.session_id === sessionId,
    );
  }

  it.each(ASKS)(
    'ends a $what that opens after its turn ended, and leaves nothing waiting',
    async ({ kind, asked, heard }) => {
      const running = await world.serve();
      const registry = running.turns.userInputs;
      const tag = `ending-${asked}`;
      const started = await startTask(`/end-while-opening ${asked} ${tag}`);
      let first: { id: string; kind: string } | undefined;
      await eventually(async () => {
        [first] = await listed(started.sessionId);
        return first !== undefined;
      }, AGENT_WAIT_MS);
      expect(first?.kind).toBe(kind);

      // The second ask reaches the registry while its turn runs, and waits there to open.
      pause = armPause('user_input.before_copy_kept', PAUSE_BOUND_MS);
      writeFileSync(join(world.dir, `${tag}.go`), '');
      await pause.reached;
      writeFileSync(join(world.dir, `${tag}.end`), '');
      // The turn's end settled the request open then: the second missed it.
      await eventually(() => registry.get(first?.id ?? '')?.status === 'settled', AGENT_WAIT_MS);
      expect(registry.get(first?.id ?? '')).toMatchObject({ settled_reason: 'swept' });
      expect(await sessionOf(started)).toMatchObject({ state: 'idle' });

      pause.release();
      await eventually(
        async () =>
          existsSync(join(world.dir, `${tag}-2.json`)) ||
          (await listed(started.sessionId)).length > 0,
        AGENT_WAIT_MS,
      );
      expect(await listed(started.sessionId)).toEqual([]);
      expect(registry.snapshot()).toEqual([]);
      expect(await sessionOf(started)).toMatchObject({ state: 'idle', pending_action: null });
      expect(heardBy(tag, 2)).toEqual({ reply: heard });
      expect(heardBy(tag, 1)).toEqual({ reply: heard });
      const decisions = await api('GET', '/api/v1/decisions');
      expect(decisions.json.decisions).toEqual([]);
    },
    60_000,
  );

  it('keeps a link that opens after its turn ended, and sends the person’s Done as a follow-up', async () => {
    const running = await world.serve();
    const registry = running.turns.userInputs;
    const tag = 'ending-url';
    const started = await startTask(`/end-while-opening url ${tag}`);
    let first: { id: string; kind: string } | undefined;
    await eventually(async () => {
      [first] = await listed(started.sessionId);
      return first !== undefined;
    }, AGENT_WAIT_MS);
    expect(first?.kind).toBe('action');

    pause = armPause('user_input.before_copy_kept', PAUSE_BOUND_MS);
    writeFileSync(join(world.dir, `${tag}.go`), '');
    await pause.reached;
    writeFileSync(join(world.dir, `${tag}.end`), '');
    // A link outlives a normal end of its turn: the one open then waits on.
    await eventually(async () => (await sessionOf(started))?.state === 'idle', AGENT_WAIT_MS);
    pause.release();
    await eventually(async () => (await listed(started.sessionId)).length === 2, AGENT_WAIT_MS);

    // Each answered alike, whether it opened before its turn's end or after: the agent hears
    // Done, and, its turn over, gets it as a follow-up message too. The late one first: the
    // other's follow-up starts a turn whose end would make up for what it missed.
    for (const [n, request] of [...(await listed(started.sessionId)).entries()].reverse()) {
      const done = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
        decision: 'done',
      });
      expect(done.status).toBe(200);
      await eventually(() => registry.get(request.id)?.status === 'settled', AGENT_WAIT_MS);
      expect(registry.get(request.id)).toMatchObject({ settled_reason: 'dispatched' });
      await eventually(
        () => existsSync(join(world.dir, `${tag}-${String(n + 1)}.json`)),
        AGENT_WAIT_MS,
      );
    }
    expect(heardBy(tag, 1)).toEqual({ reply: { action: 'accept' } });
    expect(heardBy(tag, 2)).toEqual({ reply: { action: 'accept' } });
  }, 60_000);
});
