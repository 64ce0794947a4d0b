/**
 * A person who withdraws answer links (turns them off, or deletes the
 * channel) while a send is already past its recheck, on SQLite and
 * PostgreSQL: the send that mints its links after the withdrawal committed
 * carries none that work. The attempt is held between its recheck and its
 * minting (`notify.before_answer_links`: the withdrawal commits first), or
 * in its minting's transaction once it holds what a withdrawal must wait
 * for (`notify.answer_links_held`: the withdrawal commits after), and the
 * withdrawal lands there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Driver } from '../../src/store/index.js';
import { armPause, type ArmedPause } from '../../src/support/failpoints.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig } from '../support/in-process-server.js';
import { addChannel, FAST_NOTIFY, noticesSettled } from '../support/notify-options.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { seedAdminSession } from '../support/seed.js';

const ADMIN_TOKEN = 'links-withdrawn-admin-token-0123456';
const PAUSE_BOUND_MS = 20_000;
const WAIT_MS = 20_000;
/** Long enough for a request to reach the database's lock wait. */
const SETTLE_MS = 300;

const CASES = (['turned answer links off', 'deleted the channel'] as const).flatMap((withdrawal) =>
  (['notify.before_answer_links', 'notify.answer_links_held'] as const).map((point) => ({
    withdrawal,
    point,
  })),
);

/** A consent request (Allow once / Reject) in a new session of the admin's workspace. */
async function requestConsent(running: RunningServer) {
  const sessionId = await seedAdminSession(running.store, 'withdrawn links');
  const { task_id: taskId } = await running.store.db
    .selectFrom('task_sessions')
    .select('task_id')
    .where('id', '=', sessionId)
    .executeTakeFirstOrThrow();
  const requested = running.turns.userInputs.request({
    kind: 'consent',
    sessionId,
    taskId,
    profile: 'demo',
    toolKey: 'shell',
    command: 'Run the migrations',
    title: 'Run the migrations',
    options: [
      { option_id: 'allow', label: 'Allow once', kind: 'allow_once' },
      { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
    ],
  });
  if (!requested.ok) throw new Error('the consent was not requested');
  return requested;
}

/** The answer links' secrets an ntfy notice carries. */
function linkTokens(body: string): string[] {
  const sent = JSON.parse(body) as { actions?: { url: string }[] };
  return (sent.actions ?? [])
    .map(({ url }) => url)
    .filter((url) => url.includes('/answer#'))
    .map((url) => url.slice(url.indexOf('#') + 1));
}

async function use(running: RunningServer, token: string): Promise<number> {
  const used = await fetch(`${running.url}/api/v1/answer-links/use`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  await used.arrayBuffer();
  return used.status;
}

describe.each(DRIVERS)(
  'answer links withdrawn while a send is under way on %s',
  (driver: Driver) => {
    let database: TestDatabase;
    let server: RunningServer | undefined;
    let receiver: Receiver | undefined;
    let pause: ArmedPause | undefined;

    beforeEach(async () => {
      database = await freshDatabase(driver, { migrated: true });
    });

    afterEach(async () => {
      pause?.release();
      pause = undefined;
      await server?.close();
      server = undefined;
      await receiver?.close();
      receiver = undefined;
      await database.dispose();
    });

    it.each(CASES)(
      'sends no working link once its person $withdrawal (held at $point)',
      async ({ withdrawal, point }) => {
        server = await startServer(serverConfig(database, ADMIN_TOKEN), silentLogger, {
          notify: FAST_NOTIFY,
        });
        const running = server;
        const api = bearerApi(running.url, ADMIN_TOKEN);
        const ntfy = await startReceiver();
        receiver = ntfy;
        const channelId = await addChannel(api, { kind: 'ntfy', url: `${ntfy.url}/topic` });

        pause = armPause(point, PAUSE_BOUND_MS);
        const requested = await requestConsent(running);
        // The attempt checked the settings (links on) and is about to mint, or minting.
        await pause.reached;

        const withdrawing =
          withdrawal === 'deleted the channel'
            ? fetch(`${running.url}/api/v1/notification-channels/${channelId}`, {
                method: 'DELETE',
                headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
              })
            : fetch(`${running.url}/api/v1/notification-settings`, {
                method: 'PUT',
                headers: {
                  authorization: `Bearer ${ADMIN_TOKEN}`,
                  'content-type': 'application/json',
                },
                body: JSON.stringify({ answer_links: false }),
              });
        if (point === 'notify.answer_links_held') {
          // The withdrawal waits for the minting's transaction; let it reach that wait.
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          pause.release();
        }
        const withdrawn = await withdrawing;
        await withdrawn.arrayBuffer();
        expect(withdrawn.status).toBeLessThan(300);
        pause.release();

        await eventually(() => ntfy.received.length >= 1, WAIT_MS);
        if (withdrawal === 'turned answer links off') await noticesSettled(running);
        for (const token of linkTokens(ntfy.received[0]?.body ?? '{}')) {
          expect(await use(running, token)).toBe(404);
        }
        expect(running.turns.userInputs.get(requested.id)).toMatchObject({ status: 'awaiting' });
        expect(await running.store.db.selectFrom('answer_links').select('id').execute()).toEqual(
          [],
        );
      },
      60_000,
    );

    it('turns links off while a retry revokes its earlier links and mints anew', async () => {
      server = await startServer(serverConfig(database, ADMIN_TOKEN), silentLogger, {
        notify: FAST_NOTIFY,
      });
      const running = server;
      const api = bearerApi(running.url, ADMIN_TOKEN);
      // The first attempt carries links and fails: the retry revokes them as it mints its own.
      const ntfy = await startReceiver((_request, index) =>
        index === 0 ? { status: 503, body: 'busy' } : { status: 200 },
      );
      receiver = ntfy;
      await addChannel(api, { kind: 'ntfy', url: `${ntfy.url}/topic` });
      pause = armPause('notify.answer_links_checking', PAUSE_BOUND_MS);
      const requested = await requestConsent(running);
      await pause.reached;
      pause.release();
      await eventually(() => ntfy.received.length >= 1, WAIT_MS);
      pause = armPause('notify.answer_links_checking', PAUSE_BOUND_MS);
      await pause.reached;

      const withdrawing = fetch(`${running.url}/api/v1/notification-settings`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ answer_links: false }),
      });
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      pause.release();
      const withdrawn = await withdrawing;
      await withdrawn.arrayBuffer();
      expect(withdrawn.status).toBe(200);

      await eventually(() => ntfy.received.length >= 2, WAIT_MS);
      await noticesSettled(running);
      for (const request of ntfy.received) {
        for (const token of linkTokens(request.body)) expect(await use(running, token)).toBe(404);
      }
      expect(running.turns.userInputs.get(requested.id)).toMatchObject({ status: 'awaiting' });
    }, 60_000);
  },
);
