/**
 * The other replicas as a claim's delivery sees them (issue 16): who holds a
 * session's lease and whether a replica runs (one read of the store), a wake
 * that announces a claim to every replica, and a wait for the next wake about
 * a session (or the next poll of the wake bus, since a wake may be lost). Clarification takes this as its `ClaimReplicas` port.
 */
import type { DeliveryOwners, OwnerTerms, RepoContext, Store } from '../store/index.js';
import { deliveryOwners, timestampAtMs } from '../store/index.js';
import type { Timers } from '../support/index.js';
import type { WakeBus } from './wake-bus.js';

export interface ClaimReplicasDeps {
  readonly store: Store;
  readonly bus: WakeBus;
  /** A replica is live while its last heartbeat is younger than this. */
  readonly leaseMs: number;
  readonly timers: Timers;
}

export interface ClaimReplicasView {
  readonly id: string;
  owners(sessionId: string, askedOn: string | undefined): Promise<DeliveryOwners>;
  ownerTerms(): OwnerTerms;
  announce(pendingId: string, tx?: RepoContext): Promise<void>;
  changed(sessionId: string, ms: number, signal: AbortSignal): Promise<void>;
}

export function claimReplicas({
  store,
  bus,
  leaseMs,
  timers,
}: ClaimReplicasDeps): ClaimReplicasView {
  const ownerTerms = (): OwnerTerms => {
    const nowMs = store.clock.nowMs();
    return { now: timestampAtMs(nowMs), heartbeatAfter: timestampAtMs(nowMs - leaseMs) };
  };
  return {
    id: bus.replicaId,
    owners: (sessionId, askedOn) => deliveryOwners(store, { sessionId, askedOn, ...ownerTerms() }),
    ownerTerms,
    announce: (pendingId, tx) => bus.send(tx ?? store, { kind: 'delivery', pendingId }),
    changed(sessionId, ms, signal) {
      return new Promise((resolve) => {
        const done = () => {
          timer.cancel();
          unsubscribe();
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = timers.setTimeout(done, ms);
        const unsubscribe = bus.subscribe({
          kinds: ['session'],
          wake({ topic }) {
            if (topic.kind === 'session' && topic.sessionId === sessionId) done();
          },
          // A poll, or the listener back: a wake about it may have been lost, so look again.
          resync: done,
        });
        if (signal.aborted) done();
        else signal.addEventListener('abort', done, { once: true });
      });
    },
  };
}
