/**
 * A consent decision whose COMMIT went through but whose reply was lost (the
 * connection dropped, or gave no reply in time, just after the server
 * committed). The client cannot tell that from a commit that failed, so the
 * recorder reads once whether its row was kept: kept, the decision stands;
 * unknown, it is refused (503), and the row the lost commit left is superseded
 * (it records no decision), so neither the log nor a watcher ever shows a
 * decision that did not count. PostgreSQL only: a SQLite commit is a call into the library in this
 * process, which cannot succeed unseen.
 */
import {
  RawNode,
  SelectQueryNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { permissionRequest } from '../support/user-input-fixtures.js';
import { StorageUnavailableError } from '../../src/store/index.js';
import { consentHandler } from '../../src/turns/user-input-bridge.js';
import type { ConsentView } from '../../src/user-input/index.js';
import { USER_INPUT_DECISION_TYPE } from '../../src/wire/index.js';
import {
  decisionRows,
  decisionsWatchersSee,
  listedConsent,
  turnsHarness,
  type TurnsHarness,
  unkeptDecisionIds,
} from '../support/turns-harness.js';

/**
 * Once armed, the next COMMIT runs for real and its reply is then lost; with
 * `readsToo`, so is the next read's, as when the database stays unreachable.
 */
class LostReplies implements KyselyPlugin {
  private armed: { readsToo: boolean } | undefined;
  private commitLost = false;
  private readonly doomed = new WeakSet<object>();

  arm(readsToo: boolean): void {
    this.armed = { readsToo };
    this.commitLost = false;
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (!this.armed) return node;
    const commit = RawNode.is(node) && node.sqlFragments.join('').trim() === 'COMMIT';
    if (commit && !this.commitLost) this.doomed.add(queryId);
    if (this.commitLost && SelectQueryNode.is(node)) this.doomed.add(queryId);
    return node;
  }

  transformResult({
    result,
    queryId,
  }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (!this.armed || !this.doomed.has(queryId)) return Promise.resolve(result);
    if (this.commitLost || !this.armed.readsToo) this.armed = undefined;
    this.commitLost = true;
    return Promise.reject(
      new StorageUnavailableError('unreachable', new Error('Connection terminated unexpectedly')),
    );
  }
}

describe('a decision whose commit reply was lost, on postgres', () => {
  let h: TurnsHarness;
  let sessionId: string;
  const lost = new LostReplies();

  beforeEach(async () => {
    h = await turnsHarness('postgres', { plugins: [lost] });
    sessionId = (await h.createTask('publish the package')).session.id;
  });

  afterEach(async () => {
    await h.dispose();
  });

  async function askConsent(): Promise<{ consent: ConsentView; answer: Promise<unknown> }> {
    const handler = consentHandler({ store: h.store }, () => h.turns.userInputs);
    const answer = handler(sessionId, permissionRequest(sessionId), {
      turnId: undefined,
      signal: new AbortController().signal,
      ended: new AbortController().signal,
    });
    return { consent: await listedConsent(h, sessionId), answer };
  }

  const respond = (consent: ConsentView, optionId: string) =>
    h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, { option_id: optionId });

  const decisionOptions = async () =>
    (await decisionRows(h, sessionId)).map(
      (metadata) => (JSON.parse(metadata) as { option_id: string }).option_id,
    );

  /** The decision rows watchers of the session were told of. */
  const decisionsPublished = () =>
    h.events.events.filter(
      (event) =>
        event.type === 'message.added' &&
        event.session_id === sessionId &&
        event.message.type === USER_INPUT_DECISION_TYPE,
    );

  it('stands when one read finds its row kept: 200, the agent hears it, one row, published', async () => {
    const { consent, answer } = await askConsent();
    lost.arm(false);

    const chosen = await respond(consent, 'allow');
    expect(chosen.status).toBe(200);
    expect(await answer).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    expect(await decisionOptions()).toEqual(['allow']);
    expect(decisionsPublished()).toHaveLength(1);
  });

  it('is refused while its fate is unknown; its row is superseded, the retry decides', async () => {
    const { consent, answer } = await askConsent();
    let heard = false;
    void answer.then(() => (heard = true));
    lost.arm(true);

    const refused = await respond(consent, 'allow');
    expect(refused.status).toBe(503);
    // The lost commit kept its row, which is superseded at once: it records no decision, and
    // watchers never heard of it as one. The request still waits and the agent heard nothing.
    await expect.poll(decisionOptions).toEqual([]);
    expect(decisionsWatchersSee(h, sessionId)).toEqual([]);
    expect(await unkeptDecisionIds(h, sessionId)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toBe(false);

    expect(decisionsPublished()).toEqual([]);

    const chosen = await respond(consent, 'reject');
    expect(chosen.status).toBe(200);
    expect(await answer).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    expect(await decisionOptions()).toEqual(['reject']);
    expect(decisionsPublished()).toHaveLength(1);
    expect(decisionsWatchersSee(h, sessionId)).toEqual(['reject']);
  });
});
