/**
 * An agent's exit while the storage refuses what the exit must do: end its
 * credential, give back its lease, fail its session. Each is needed on its
 * own: a credential left live outlives the process it was for, a lease kept
 * keeps every other replica from the session, and a session never failed
 * shows a running agent that is gone until a restart. So a refused revoke is
 * tried again on the turns' timers, and neither it nor a refused release
 * keeps the others from running.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RuntimeEvent } from '../../src/agents/runtime.js';
import { resolveToken } from '../../src/auth/index.js';
import { getSession, StorageUnavailableError } from '../../src/store/index.js';
import type { TurnsDeps } from '../../src/turns/context.js';
import { ensureAgent } from '../../src/turns/dispatch.js';
import { handleRuntimeEvent } from '../../src/turns/runtime-events.js';
import { AGENT_EVENT_RETRY_BASE_MS } from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import { leasePort } from '../support/lease-port.js';
import { faultedTurns, type FaultedTurns } from '../support/faulted-turns.js';
import type { TurnsHarness } from '../support/turns-harness.js';

describe.each(DRIVERS)('an agent exit the storage refuses part of, on %s', (driver) => {
  let h: TurnsHarness;
  let faults: FaultedTurns['faults'];
  let timers: FaultedTurns['timers'];
  let log: FaultedTurns['log'];

  beforeEach(async () => {
    ({ h, faults, timers, log } = await faultedTurns(driver));
  });

  afterEach(async () => {
    await h.dispose();
  });

  /** Starts the session's agent under `deps` and kills it; its exit, not yet handled. */
  async function agentDied(deps: TurnsDeps) {
    const { session } = await h.createTask();
    await ensureAgent(deps, session.id);
    h.pump.stop();
    const exits: RuntimeEvent[] = [];
    h.host.subscribe((event) => {
      if (event.type === 'agent_exited') exits.push(event);
    });
    h.host.exit(session.id);
    const [exit] = exits;
    const [launch] = h.host.launches;
    if (!exit || !launch) throw new Error('the agent started and exited');
    return { sessionId: session.id, exit, token: launch.mcp.token };
  }

  it('ends the credential once the storage takes it, and gives back the lease and fails the session', async () => {
    const released: string[] = [];
    const deps = {
      ...h.turns,
      leases: leasePort({ release: (id) => Promise.resolve(void released.push(id)) }),
    };
    const { sessionId, exit, token } = await agentDied(deps);

    faults.refuseNext('delete', 'api_tokens');
    const handled = handleRuntimeEvent(deps, exit);
    await eventually(() => log.pauses().length === 1);
    expect(faults.failed).toBe(1);
    timers.advance(AGENT_EVENT_RETRY_BASE_MS);
    await handled;

    expect(await resolveToken(h.store, token, 'bearer')).toBeUndefined();
    expect(released).toEqual([sessionId]);
    expect((await getSession(h.store, sessionId))?.state).toBe('failed');
  });

  it('fails the session even when its lease cannot be given back now', async () => {
    const deps = {
      ...h.turns,
      leases: leasePort({
        release: () =>
          Promise.reject(new StorageUnavailableError('unreachable', new Error('connection lost'))),
      }),
    };
    const { sessionId, exit, token } = await agentDied(deps);

    await handleRuntimeEvent(deps, exit);

    expect(await resolveToken(h.store, token, 'bearer')).toBeUndefined();
    expect((await getSession(h.store, sessionId))?.state).toBe('failed');
  });
});
