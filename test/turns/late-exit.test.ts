/**
 * An agent's exit handled after a newer agent of the same session started
 * here (an idle stop, then a message the moment it ends), on both dialects
 * with agents played by the test. The exit belongs to the old process: it
 * must end nothing of the new one, neither its credential nor its lease, nor
 * fail the session the new agent runs. Starts and exits of one session go
 * one at a time (`AgentStarts.serially`), so the late exit finds the newer
 * agent running.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RuntimeEvent } from '../../src/agents/runtime.js';
import { resolveToken } from '../../src/auth/index.js';
import { getSession } from '../../src/store/index.js';
import { ensureAgent } from '../../src/turns/dispatch.js';
import { handleRuntimeEvent } from '../../src/turns/runtime-events.js';
import { DRIVERS } from '../support/databases.js';
import { leasePort } from '../support/lease-port.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('an agent exit handled after a newer start, on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('ends nothing of the newer agent: its credential, its lease and its session stay', async () => {
    const { session } = await h.createTask();
    const released: string[] = [];
    const leases = leasePort({ release: (id) => Promise.resolve(void released.push(id)) });
    const deps = { ...h.turns, leases };
    await ensureAgent(deps, session.id);

    // The old process dies; its exit waits to be handled until after the next start.
    h.pump.stop();
    const exits: RuntimeEvent[] = [];
    h.host.subscribe((event) => {
      if (event.type === 'agent_exited') exits.push(event);
    });
    h.host.exit(session.id);
    await ensureAgent(deps, session.id);
    const [late] = exits;
    if (!late) throw new Error('the old agent reported its exit');
    await handleRuntimeEvent(deps, late);

    const [first, second] = h.host.launches;
    if (!first || !second) throw new Error('two agents were started');
    expect(await resolveToken(h.store, first.mcp.token, 'bearer')).toBeUndefined();
    expect(await resolveToken(h.store, second.mcp.token, 'bearer')).toMatchObject({
      kind: 'agent',
      sessionId: session.id,
    });
    expect(released).toEqual([]);
    expect(h.host.isStarted(session.id)).toBe(true);
    expect((await getSession(h.store, session.id))?.state).not.toBe('failed');
  });
});
