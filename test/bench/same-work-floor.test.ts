/**
 * The same-work floor of benchmark 3 does the work it claims to: a respond
 * authenticates, checks visibility, claims with the delivery intent and
 * clears it with a revision bump; a second respond to the same bundle is a
 * loser and, as in Clarion's resolver, gets 200 with `claimed: false` and the
 * winner's response (409 only when nobody won).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../../bench/clarion-instance.js';
import { BenchClient, type JsonReply } from '../../bench/http-client.js';
import { startSameWorkFloor, type SameWorkFloor } from '../../bench/same-work-floor.js';

const OUTSIDER_TOKEN = 'bench-outsider-token';

interface RespondBody {
  claimed: boolean;
  status: string;
  response: {
    pending_id: string;
    answers: { question_id: string; selected_options: string[]; custom_text: string }[];
    rejected: boolean;
    reject_reason: string;
    responded_at: string;
  };
}

describe('the same-work floor', () => {
  let floor: SameWorkFloor;
  let client: BenchClient;

  beforeAll(async () => {
    floor = await startSameWorkFloor({
      unrelated: 300,
      pending: 4,
      sessions: 2,
      token: ADMIN_TOKEN,
      outsiderToken: OUTSIDER_TOKEN,
    });
    client = new BenchClient(floor.url);
  });

  afterAll(async () => {
    client.close();
    await floor.close();
  });

  const respond = (pendingId: string, body: unknown, token = ADMIN_TOKEN): Promise<JsonReply> =>
    client.post(`/api/v1/clarification/${pendingId}/respond`, body, {
      authorization: `Bearer ${token}`,
    });

  const pendingId = (index: number): string => {
    const id = floor.pendingIds[index];
    if (id === undefined) throw new Error(`no pending ID ${index}`);
    return id;
  };

  it('claims once, clears the intent, and answers a second responder as a loser', async () => {
    const id = pendingId(0);
    const before = floor.inspect(id);
    expect(before.rows.map((row) => row.metadata.status)).toEqual(['pending']);

    const answer = {
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt1', 'q1_opt1'], custom_text: ' ok ' },
      ],
    };
    const first = await respond(id, answer);
    expect(first.status).toBe(200);
    const won = JSON.parse(first.body) as RespondBody;
    expect(won.claimed).toBe(true);
    expect(won.status).toBe('answered');
    expect(won.response).toEqual({
      pending_id: id,
      answers: [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: 'ok' }],
      rejected: false,
      reject_reason: '',
      responded_at: won.response.responded_at,
    });
    expect(won.response.responded_at).not.toBe('');

    const after = floor.inspect(id);
    const [row] = after.rows;
    expect(after.rows).toHaveLength(1);
    expect(row?.metadata.status).toBe('answered');
    expect(row?.metadata.response).toEqual(won.response.answers[0]);
    expect(row?.metadata).not.toHaveProperty('response_delivery_pending');
    expect(after.revision).toBe((before.revision ?? Number.NaN) + 1);

    const second = await respond(id, {
      answers: [{ question_id: 'q1', selected_options: ['q1_opt2'] }],
    });
    expect(second.status).toBe(200);
    const lost = JSON.parse(second.body) as RespondBody;
    expect(lost.claimed).toBe(false);
    expect(lost.status).toBe('answered');
    expect(lost.response).toEqual(won.response);
    // The loser changed nothing.
    expect(floor.inspect(id)).toEqual(after);
  });

  it('stores a rejection and replays it to a loser', async () => {
    const id = pendingId(1);
    const first = await respond(id, { rejected: true, reject_reason: 'not now' });
    expect(first.status).toBe(200);
    const won = JSON.parse(first.body) as RespondBody;
    expect([won.claimed, won.status, won.response.rejected]).toEqual([true, 'rejected', true]);
    expect(won.response.answers).toEqual([]);
    expect(floor.inspect(id).rows[0]?.metadata).toMatchObject({
      status: 'rejected',
      reject_reason: 'not now',
    });
    const second = JSON.parse((await respond(id, { rejected: true })).body) as RespondBody;
    expect(second.claimed).toBe(false);
    expect(second.response).toEqual(won.response);
  });

  it('authenticates and checks visibility before claiming', async () => {
    const id = pendingId(2);
    expect((await respond(id, { rejected: true }, 'clr_unknown')).status).toBe(401);
    const outsider = await respond(id, { rejected: true }, OUTSIDER_TOKEN);
    const unknown = await respond('no-such-bundle', { rejected: true });
    expect([outsider.status, unknown.status]).toEqual([404, 404]);
    expect(outsider.body).toBe(unknown.body);
    expect(floor.inspect(id).rows.map((row) => row.metadata.status)).toEqual(['pending']);
  });

  it('reads and claims the bundle through the ordered partial index', () => {
    const plans = floor.plans();
    for (const plan of [plans.bundleRows, plans.claim]) {
      expect(plan.join('\n')).toMatch(/SEARCH messages USING INDEX idx_same_work_pending_ordered/);
    }
  });
});
