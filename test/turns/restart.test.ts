/**
 * A restart of a failed session answers within the admission's start wait
 * (`ADMISSION_START_WAIT_MS`), not after its agent's whole start and its
 * queued message's dispatch: a slow start answers the session `starting`,
 * then the agent starts and the queued message is sent once. A restart past
 * the running-agent quota is refused before it changes anything, and so is
 * any start of an agent for a person no longer in the task's workspace
 * (`owner_removed`; their removal ends the sessions it finds live, and this
 * refuses the rest). On both dialects, with agents played by the test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addWorkspaceMember,
  getSession,
  listQueue,
  removeWorkspaceMember,
} from '../../src/store/index.js';
import { ADMISSION_START_WAIT_MS } from '../../src/tunables.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

/** How long the agent's start takes unless the test ends it sooner: far past the wait. */
const SLOW_START_MS = ADMISSION_START_WAIT_MS + 8_000;

describe.each(DRIVERS)('restarting a failed session on %s', (driver) => {
  let h: TurnsHarness;

  beforeEach(async () => {
    h = await turnsHarness(driver);
  });

  afterEach(async () => {
    await h.dispose();
  });

  it('answers `starting` while a slow start goes on, then sends the queued message once', async () => {
    const { session } = await h.createTask('first');
    const queued = await h.request('POST', `/api/v1/sessions/${session.id}/messages`, {
      text: 'second',
      admission_key: 'key-2',
    });
    expect(queued.status).toBe(202);
    h.host.exit(session.id);
    await h.pump.idle();
    expect((await getSession(h.store, session.id))?.state).toBe('failed');

    const release = h.host.holdStarts();
    const slow = setTimeout(release, SLOW_START_MS);
    const began = performance.now();
    const restarted = await h.request('POST', `/api/v1/sessions/${session.id}/restart`);
    const waitedMs = performance.now() - began;
    release();
    clearTimeout(slow);

    expect(restarted.status).toBe(200);
    expect(await restarted.json()).toMatchObject({
      session: { id: session.id, state: 'starting', failure: null },
    });
    // The wait, plus room for a loaded machine; well short of the start itself.
    expect(waitedMs).toBeLessThan(ADMISSION_START_WAIT_MS + 3_000);

    await h.settled();
    expect(h.host.launches).toHaveLength(2);
    expect(h.host.prompts.map((prompt) => prompt.text)).toEqual(['first', 'second']);
    expect(await listQueue(h.store, session.id)).toEqual([]);
    expect((await getSession(h.store, session.id))?.state).toBe('running');
  });

  it('is refused at the quota before anything changes: the session stays failed', async () => {
    await h.dispose();
    h = await turnsHarness(driver, { agentQuota: { perUser: 1, perServer: 1 } });
    const failed = await h.createTask('first');
    h.host.exit(failed.session.id);
    await h.pump.idle();
    const other = await h.createTask('second');
    expect(other.admission).toBe('sent');

    const refused = await h.request('POST', `/api/v1/sessions/${failed.session.id}/restart`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'quota_exceeded' });
    expect(await getSession(h.store, failed.session.id)).toMatchObject({
      state: 'failed',
      failure_code: 'exited',
    });
    expect(h.host.launches).toHaveLength(2);
  });
  it('starts no agent for a person removed from the task’s workspace, restarted or messaged', async () => {
    const failed = await h.createTask('first');
    h.host.exit(failed.session.id);
    const stopped = await h.createTask('second');
    await h.settled();
    await h.host.stop(stopped.session.id);
    await h.pump.idle();
    expect((await getSession(h.store, stopped.session.id))?.state).toBe('idle');
    // A colleague stays; the tasks' creator goes, as when ending their sessions failed.
    const workspaceId = h.seeded.task.workspace_id;
    const colleague = h.principals.outsider.userId;
    await addWorkspaceMember(h.store, { workspaceId, userId: colleague, role: 'member' });
    expect(await removeWorkspaceMember(h.store, workspaceId, h.memberId)).toBe(true);
    const launches = h.host.launches.length;

    const restart = `/api/v1/sessions/${failed.session.id}/restart`;
    const refused = await h.request('POST', restart, undefined, 'outsider');
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'owner_removed' });
    expect(await getSession(h.store, failed.session.id)).toMatchObject({
      failure_code: 'exited',
    });

    const message = { text: 'go on', admission_key: 'go-on' };
    const sent = `/api/v1/sessions/${stopped.session.id}/messages`;
    expect((await h.request('POST', sent, message, 'outsider')).status).toBe(409);
    await h.settled();
    expect(await getSession(h.store, stopped.session.id)).toMatchObject({
      state: 'failed',
      failure_code: 'owner_removed',
    });
    expect(h.host.launches).toHaveLength(launches);
  });
});
