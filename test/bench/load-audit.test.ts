/**
 * The load audit's tally counts what went wrong and names each case by its
 * pending ID, so a failed rolling-restart or load run points at the bundle to
 * look up in the replicas' logs.
 */
import { describe, expect, it } from 'vitest';
import { tally, type DatabaseAudit } from '../../bench/load-audit.js';
import type { ResponderReply } from '../../bench/load-responders.js';

const database = (resumed: string[] = []): DatabaseAudit => ({
  resumed,
  pendingRows: 0,
  deliveryIntents: 0,
  writtenAtMs: new Map(),
});

const reply = (responder: number, option: string, claimed: boolean): ResponderReply => ({
  responder,
  status: 200,
  claimed,
  selected: [option],
});

describe('the load tally', () => {
  it('counts a clean race as raced and nothing else', () => {
    const replies = new Map([['p1', [reply(0, 'a', true), reply(1, 'a', false)]]]);
    const counts = tally(1, [{ pendingId: 'p1', selected: ['a'] }], replies, database());
    expect(counts).toMatchObject({ lost: 0, doubles: 0, inconsistent: 0, raced: 1 });
    expect(counts.findings).toEqual([]);
  });

  it('names a bundle two responders were told they won', () => {
    const replies = new Map([['p1', [reply(0, 'a', true), reply(1, 'b', true)]]]);
    const counts = tally(1, [{ pendingId: 'p1', selected: ['a'] }], replies, database());
    expect(counts).toMatchObject({ doubles: 1, inconsistent: 1 });
    expect(counts.findings).toEqual([
      'p1: 2 responders told they won: responder 0 a (claimed true), responder 1 b (claimed true)',
      'p1: responders told different winners: responder 0 a (claimed true), responder 1 b (claimed true)',
    ]);
  });

  it('names an answer its agent received twice, and one that is not the winner', () => {
    const replies = new Map([
      ['p1', [reply(0, 'a', true)]],
      ['p2', [reply(0, 'a', true)]],
    ]);
    const received = [
      { pendingId: 'p1', selected: ['a'] },
      { pendingId: 'p2', selected: ['b'] },
    ];
    const counts = tally(2, received, replies, database(['p1']));
    expect(counts).toMatchObject({ lost: 0, doubles: 1, inconsistent: 1, resumed: 1 });
    expect(counts.findings).toEqual([
      'p1: its agent received it live and by a resumed turn',
      'p2: its agent received b, the winner was a',
    ]);
  });
});
