/**
 * The queues a replica's clean stop leaves (issue 16). A stopping replica
 * starts no turn, so a message queued in one of its sessions (sent while it
 * drained, or behind the turn the stop ended) is still in the store once its
 * leases are given back, with no holder left to run it. The stop says so
 * with the `released` wake, sent in the commit that frees the leases
 * (`Replica.stop`), and so does each message the stopping replica queues,
 * with that message's commit (one may commit after the release, from a
 * request that outlived the drain); every other replica that hears it runs
 * the queues no live replica holds (`RequeueSessions`, as start-up recovery
 * does). The session
 * write's lock and the lease's conditional take give each session to one of
 * them: the others find it `starting`, or held elsewhere.
 *
 * A lost wake: `resync` (the bus's poll, and every listener reconnect) reads
 * the replicas marked stopped and runs the queues when a stop mark is new
 * since the last pass, so the queues run within one poll. Its first look runs
 * them if any replica is marked stopped at all: a stop may have come between
 * start-up recovery and this subscription. When the last replica stops,
 * nobody hears: the next start's recovery runs them (`startUpScope`).
 *
 * One pass at a time; a wake during one runs one more after it. A pass that
 * fails leaves the marks it read unseen, so the next poll tries again.
 */
import type { Logger } from '../observability/index.js';
import { stoppedReplicas, type Store } from '../store/index.js';
import type { Replica, RequeueSessions } from './replica.js';
import type { WakeSubscriber } from './wake-bus.js';

export interface ReleasedQueuesDeps {
  readonly store: Store;
  readonly replica: Pick<Replica, 'id' | 'leases'>;
  /** Runs the queues of idle sessions in a scope (the composition root wires turns). */
  readonly requeue: RequeueSessions;
  readonly logger: Logger;
}

export function releasedQueues(deps: ReleasedQueuesDeps): WakeSubscriber {
  const { store, replica, requeue, logger } = deps;
  /** Per other replica, the stop mark the last pass read; `undefined` before the first pass. */
  let seen: ReadonlyMap<string, string> | undefined;
  let running: Promise<void> | undefined;
  /** Counts the passes asked for: one asked during a pass runs after it. */
  let asked = 0;

  const othersStopped = async () =>
    (await stoppedReplicas(store)).filter((mark) => mark.id !== replica.id);

  const pass = async () => {
    // Read first: a stop marked while the queues run is new to the next look.
    const marks = await othersStopped();
    await requeue({ kind: 'not_held_elsewhere', replicaId: replica.id, now: replica.leases.now() });
    seen = new Map(marks.map((mark) => [mark.id, mark.stopped_at]));
  };

  const run = (): Promise<void> => {
    asked += 1;
    running ??= (async () => {
      try {
        for (let done = 0; done < asked;) {
          done = asked;
          await pass();
        }
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  return {
    kinds: ['released'],
    wake({ topic, origin }) {
      if (topic.kind !== 'released' || origin === replica.id) return;
      void run().catch((error: unknown) => {
        logger.warn(
          { err: error, stopped: topic.replicaId },
          'running the queues a stopped replica left failed; the next poll tries again',
        );
      });
    },
    async resync() {
      const marks = await othersStopped();
      const known = seen;
      const fresh =
        known === undefined
          ? marks.length > 0
          : marks.some((mark) => known.get(mark.id) !== mark.stopped_at);
      if (fresh) await run();
    },
  };
}
