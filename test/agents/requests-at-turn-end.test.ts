/**
 * A request that arrives as its turn ends, a real ACP agent
 * (`edge-request-fixtures.ts`) on the whole server in this process: a pause
 * point holds the request still opening (its copy not yet kept) while the
 * turn ends and that end settles the request that was open. Released, the
 * late one ends too, as it opens: its agent hears `cancelled`, nothing waits
 * on the idle session and nobody is left to decide it. A permission request
 * and a form of the turn alike.
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
});
