/**
 * Hostile input for `/api/v1/clarification/:pendingId/respond`, on both
 * dialects (DESIGN §5.1, §8). Thousands of generated malformed or hostile
 * bodies and pending IDs get only 400, 404 or 409 (413 for the few bodies over
 * the body cap), never 500, always with the catalogue's JSON body, and
 * the database is left exactly as it was. A user outside the workspace gets
 * the unknown-ID 404 for every pending ID of it.
 *
 * Cases come from a seeded PRNG (mulberry32, `SEED` below), so a failure
 * names the seed and the case number and is reproducible. Every expectation
 * is computed from a small model of the wire contract written here: the
 * route's body rules (`bodyVerdict`: strict UTF-8, storable text as
 * `invalid_text`, the strict shape as `invalid_request`) and the bundle rules
 * of DESIGN §5.1 (`decide`, the pure rule set the resolver uses).
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import type { Question } from '../../src/clarification/questions.js';
import { createRequestGuards } from '../../src/http/request-guards.js';
import { createSession, setSessionState, startTurn } from '../../src/store/index.js';
import { DRIVERS } from '../support/databases.js';
import {
  ANSWERS,
  TWO_QUESTIONS,
  clarificationHarness,
  type Harness,
} from '../support/clarification-harness.js';
import { seedSession } from '../support/seed.js';
import {
  SEED,
  CASES_PER_DIALECT,
  BODY_LIMIT,
  UNKNOWN_ID,
  NOT_FOUND,
  NOT_ACTIVE,
  PAINT,
  SHAPE_OF,
  VISIBLE_TO,
  REAL_KEYS,
  DB_HOSTILE_TEXTS,
  INVISIBLE_TEXTS,
  fingerprint as tableFingerprint,
  byteLength,
  generateCases,
  read,
  bodyProblems,
  codeOf,
  preview,
  inBatches,
  tally,
  sorted,
  type Who,
  type RealKey,
  type Shape,
  type Case,
  type Reply,
} from '../support/hostile-cases.js';

describe.each(DRIVERS)('hostile input to the clarification routes on %s', (driver) => {
  let h: Harness;
  /** The harness app behind the production request guards (the body cap, JSON only). */
  let guarded: Hono;
  let ids: Record<RealKey, string>;
  let questions: Record<Shape, readonly Question[]>;
  let before: Record<string, string>;
  let eventsBefore: number;
  let cases: Case[];

  function post(
    segment: string,
    body: string | Uint8Array,
    as: Who,
    action = 'respond',
  ): Promise<Response> {
    return Promise.resolve(
      guarded.request(`/api/v1/clarification/${segment}/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test-principal': as },
        body,
      }),
    );
  }

  function get(segment: string, as: Who) {
    return guarded.request(`/api/v1/clarification/${segment}`, {
      headers: { 'x-test-principal': as },
    });
  }

  function fingerprint(): Promise<Record<string, string>> {
    return tableFingerprint(h.store);
  }

  async function expectUnchanged(): Promise<void> {
    expect(await fingerprint()).toEqual(before);
    expect(h.runtime.prompts).toEqual([]);
    expect(h.events.events).toHaveLength(eventsBefore);
  }

  async function askDetached(sessionId: string, input: unknown): Promise<string> {
    const result = await h.service.ask(sessionId, input, { timeoutMs: 1 });
    if (!result.ok || result.outcome !== 'open') throw new Error('expected an open bundle');
    return result.pendingId;
  }

  beforeAll(async () => {
    h = await clarificationHarness(driver);
    const { session, task } = h.seeded;

    // Session A (the agent's): an old bundle superseded by a newer turn, then the active one.
    const superseded = await askDetached(session.id, { ...TWO_QUESTIONS, context: 'superseded' });
    await startTurn(h.store, { sessionId: session.id, taskId: task.id });
    const active = await askDetached(session.id, TWO_QUESTIONS);

    // Session B: ended, its bundle expired.
    const b = await createSession(h.store, {
      taskId: task.id,
      agentProfile: 'demo',
      state: 'running',
    });
    await startTurn(h.store, { sessionId: b.id, taskId: task.id });
    const expired = await askDetached(b.id, PAINT);
    await setSessionState(h.store, b.id, 'completed');
    expect(
      (await h.service.expireSession(b.id, 'exited')).map((row) => row.metadata.status),
    ).toEqual(['expired', 'expired']);

    // Session C: failed, its bundle still pending but no longer answerable.
    const c = await createSession(h.store, {
      taskId: task.id,
      agentProfile: 'demo',
      state: 'running',
    });
    await startTurn(h.store, { sessionId: c.id, taskId: task.id });
    const ended = await askDetached(c.id, { ...TWO_QUESTIONS, context: 'ended' });
    await setSessionState(h.store, c.id, 'failed');

    // Another workspace: active, but nobody here may see it.
    const other = await seedSession(h.store, 'foreign');
    await setSessionState(h.store, other.session.id, 'running');
    const foreign = await askDetached(other.session.id, TWO_QUESTIONS);

    ids = { active, superseded, expired, ended, foreign };
    expect(new Set(Object.values(ids)).size).toBe(5);

    const member: Principal = h.principals.member;
    const reads = await Promise.all(REAL_KEYS.map((key) => h.service.get(member, ids[key])));
    const views = reads.map((read) => (read.ok ? read.view : undefined));
    expect(views.map((view) => view && [view.status, view.active])).toEqual([
      ['pending', true],
      ['expired', false],
      ['expired', false],
      ['expired', false],
      undefined,
    ]);
    const parser = views[0]?.questions;
    const paint = views[2]?.questions;
    if (!parser || !paint) throw new Error('bundles not readable');
    questions = { parser, paint };

    guarded = new Hono();
    guarded.use('/api/v1/*', createRequestGuards());
    guarded.all('*', (ctx) => h.app.fetch(ctx.req.raw));

    cases = generateCases(ids, questions);
    before = await fingerprint();
    eventsBefore = h.events.events.length;
  });

  afterAll(async () => {
    await h.dispose();
  });

  it(`answers ${CASES_PER_DIALECT} generated hostile requests with 400, 404 or 409 (403 to an agent) only, changing nothing`, async () => {
    const byIdCategory = new Map<string, number>();
    const byBodyCategory = new Map<string, number>();
    const byStatus = new Map<string, number>();
    const failures: string[] = [];
    const baselines = new Map<string, Promise<Reply>>();
    const started = performance.now();

    /** The reply the same caller gets for the same body and an ID that exists nowhere. */
    function baseline(body: string | Uint8Array, as: Who): Promise<Reply> {
      const key = `${as}\u0001${typeof body === 'string' ? body : Buffer.from(body).toString('hex')}`;
      let reply = baselines.get(key);
      if (!reply) {
        reply = post(UNKNOWN_ID, body, as).then(read);
        baselines.set(key, reply);
      }
      return reply;
    }

    await inBatches(cases, async (item) => {
      tally(byIdCategory, item.idCategory);
      tally(byBodyCategory, item.bodyCategory);
      const reply = await read(await post(item.target.segment, item.body, item.as));
      tally(byStatus, String(reply.status));
      const problems: string[] = [];
      const { expectation } = item;
      if (expectation.kind === 'exact') {
        if (!expectation.statuses.includes(reply.status)) {
          problems.push(`status ${reply.status}, expected ${expectation.statuses.join('|')}`);
        }
        if (reply.status === 400 && expectation.code !== undefined) {
          const code = codeOf(reply);
          if (code !== expectation.code) {
            problems.push(`code ${String(code)}, expected ${expectation.code}`);
          }
        }
      } else {
        const unknown = await baseline(item.body, item.as);
        if (reply.status !== expectation.status) {
          problems.push(`status ${reply.status}, expected ${expectation.status}`);
        }
        if (reply.status !== unknown.status || reply.text !== unknown.text) {
          problems.push(`differs from the unknown-ID reply ${unknown.status} ${unknown.text}`);
        }
      }
      const allowed = item.as === 'agent' ? [400, 403, 404, 413] : [400, 404, 409, 413];
      if (!allowed.includes(reply.status)) problems.push(`status outside ${allowed.join('/')}`);
      if (reply.status === 413 && byteLength(item.body) <= BODY_LIMIT) {
        problems.push('413 for a body within the limit');
      }
      problems.push(...bodyProblems(reply));
      if (reply.status === 404 && reply.text !== JSON.stringify(NOT_FOUND)) {
        problems.push('404 body differs from the not-found body');
      }
      if (reply.status === 409 && reply.text !== JSON.stringify(NOT_ACTIVE)) {
        problems.push('409 body differs from the not-active body');
      }
      if (problems.length > 0) {
        failures.push(
          [
            `seed ${SEED} case #${item.index} [${item.idCategory} × ${item.bodyCategory}] as ${item.as}`,
            `  id: ${preview(item.target.label, 80)}${item.target.real ? ` (${item.target.real})` : ''}`,
            `  body: ${preview(item.body)}`,
            `  expected: ${expectation.why}`,
            `  got: ${reply.status} ${reply.text.slice(0, 300)}`,
            ...problems.map((problem) => `  - ${problem}`),
          ].join('\n'),
        );
      }
    });
    const elapsedMs = Math.round(performance.now() - started);

    console.log(
      `[hostile-input ${driver}] seed ${SEED}: ${cases.length} cases (+${baselines.size} unknown-ID baselines) in ${elapsedMs} ms\n` +
        `  statuses: ${JSON.stringify(sorted(byStatus))}\n` +
        `  pending IDs: ${JSON.stringify(sorted(byIdCategory))}\n` +
        `  bodies: ${JSON.stringify(sorted(byBodyCategory))}`,
    );
    expect(cases.length).toBeGreaterThanOrEqual(2_000);
    expect.soft(failures.length, failures.slice(0, 25).join('\n')).toBe(0);
    expect(elapsedMs).toBeLessThan(60_000);
    // Nothing leaked onto the prototypes the server's objects share.
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Object.prototype).not.toHaveProperty('rejected');
    await expectUnchanged();
  });

  it('shows an outsider the unknown-ID 404 for every pending ID of the workspace', async () => {
    const respondBody = (key: RealKey) =>
      JSON.stringify(
        SHAPE_OF[key] === 'parser'
          ? ANSWERS
          : {
              answers: [
                { question_id: 'colour', selected_options: ['red'] },
                { question_id: 'size', custom_text: 'x' },
              ],
            },
      );
    const unknown = {
      respond: await read(await post(UNKNOWN_ID, JSON.stringify(ANSWERS), 'outsider')),
      rejected: await read(await post(UNKNOWN_ID, '{"rejected":true}', 'outsider')),
      get: await read(await get(UNKNOWN_ID, 'outsider')),
      cancel: await read(await post(UNKNOWN_ID, '', 'outsider', 'cancel')),
    };
    for (const reply of Object.values(unknown)) {
      expect(reply.status).toBe(404);
      expect(JSON.parse(reply.text)).toEqual(NOT_FOUND);
    }
    for (const key of REAL_KEYS) {
      const id = encodeURIComponent(ids[key]);
      const replies = {
        respond: await read(await post(id, respondBody(key), 'outsider')),
        rejected: await read(await post(id, '{"rejected":true}', 'outsider')),
        get: await read(await get(id, 'outsider')),
        cancel: await read(await post(id, '', 'outsider', 'cancel')),
      };
      expect(replies, `${key} bundle`).toEqual(unknown);
    }
    await expectUnchanged();
  });

  /**
   * Kept apart from the generated cases so they stay green while this one is
   * open: on PostgreSQL a NUL in the pending ID reaches the database as a
   * bound text parameter, which PostgreSQL refuses (SQLSTATE 22021), and the
   * routes answer 500 (respond: `internal` JSON; GET and cancel: a plain-text
   * 500 from Hono) instead of the unknown-ID 404.
   */
  it('answers the unknown-ID 404 for pending IDs that contain NUL', async () => {
    const nulIds = [
      '\u0000',
      'a\u0000b',
      `${ids.active}\u0000`,
      `\u0000${ids.superseded}`,
      `${ids.expired}\u0000`,
      `${ids.foreign}\u0000`,
    ];
    const failures: string[] = [];
    for (const id of nulIds) {
      const segment = encodeURIComponent(id);
      for (const as of ['member', 'agent', 'outsider'] as const) {
        const replies = {
          'respond (valid body)': await read(await post(segment, JSON.stringify(ANSWERS), as)),
          'respond (no answers)': await read(await post(segment, '{"answers":[]}', as)),
          get: await read(await get(segment, as)),
          cancel: await read(await post(segment, '', as, 'cancel')),
        };
        for (const [what, reply] of Object.entries(replies)) {
          if (reply.status !== 404 || reply.text !== JSON.stringify(NOT_FOUND)) {
            failures.push(
              `${what} ${segment} as ${as}: ${reply.status} ${reply.text.slice(0, 200)}`,
            );
          }
        }
      }
    }
    expect(failures.length, failures.join('\n')).toBe(0);
    await expectUnchanged();
  });

  it('answers GET and cancel for every generated pending ID with 200/404/409 only', async () => {
    const segments = [...new Set(cases.map((item) => item.target.segment))];
    expect(segments.length).toBeGreaterThan(100);
    const failures: string[] = [];
    const realBySegment = new Map(REAL_KEYS.map((key) => [encodeURIComponent(ids[key]), key]));
    await inBatches(segments, async (segment) => {
      for (const as of ['member', 'agent'] as const) {
        const real = realBySegment.get(segment);
        const visible = real !== undefined && VISIBLE_TO[real].includes(as);
        const view = await read(await get(segment, as));
        const cancel = await read(await post(segment, '', as, 'cancel'));
        const problems: string[] = [];
        if (view.status !== (visible ? 200 : 404)) problems.push(`GET ${view.status}`);
        if (!visible && view.text !== JSON.stringify(NOT_FOUND)) problems.push('GET 404 body');
        // No bundle here has a live waiter, so cancel is never allowed; an agent may never cancel.
        const cancelStatuses =
          as === 'agent' ? (real === undefined ? [403, 404] : [403]) : [visible ? 409 : 404];
        if (!cancelStatuses.includes(cancel.status)) problems.push(`cancel ${cancel.status}`);
        problems.push(...bodyProblems(cancel).map((problem) => `cancel: ${problem}`));
        if (problems.length > 0) {
          failures.push(
            `${as} ${preview(segment, 80)}: ${problems.join(', ')}; GET ${view.text.slice(0, 200)}; cancel ${cancel.text.slice(0, 200)}`,
          );
        }
      }
    });
    expect(failures.length, failures.slice(0, 25).join('\n')).toBe(0);
    await expectUnchanged();
  });
});

/**
 * Text within the length caps that no database keeps as sent (NUL, unpaired
 * surrogates) is refused with 400 `invalid_text` before any bundle state is
 * looked at, and an answer that shows nothing (only whitespace or invisible
 * characters, no option) is refused like an empty one; either way the bundle
 * stays pending and a real answer still goes through. Each claim gets a
 * fresh bundle on a harness of its own.
 */
describe.each(DRIVERS)('responses with text no database keeps as sent on %s', (driver) => {
  let h: Harness;
  let superseded: string;

  async function askDetached(context: string): Promise<string> {
    const asked = await h.service.ask(
      h.seeded.session.id,
      { ...TWO_QUESTIONS, context },
      { timeoutMs: 1 },
    );
    if (!asked.ok || asked.outcome !== 'open') throw new Error('expected an open bundle');
    return asked.pendingId;
  }

  beforeAll(async () => {
    // One session holds a bundle per case, some left pending on purpose: more than an agent may.
    h = await clarificationHarness(driver, { openAsksPerAgent: 1_000 });
    superseded = await askDetached('superseded');
    await startTurn(h.store, { sessionId: h.seeded.session.id, taskId: h.seeded.task.id });
  });

  afterAll(async () => {
    await h.dispose();
  });

  it.each(DB_HOSTILE_TEXTS)(
    'refuses a rejection of a superseded bundle with %j as invalid_text',
    async (text) => {
      const reply = await read(
        await h.respond(superseded, { rejected: true, reject_reason: text }),
      );
      expect(reply.status, reply.text).toBe(400);
      expect(JSON.parse(reply.text)).toEqual({
        error: 'text must be well-formed UTF-8 without NUL characters',
        code: 'invalid_text',
        details: [{ path: 'reject_reason', message: expect.any(String) as unknown }],
      });
    },
  );

  it.each(
    DB_HOSTILE_TEXTS.flatMap((text) => [
      ['answer', 'answers.1.custom_text', text] as const,
      ['answer', 'answers.0.selected_options.0', text] as const,
      ['rejection', 'reject_reason', text] as const,
    ]),
  )(
    'refuses a %s with %s %j as invalid_text, the bundle still pending',
    async (kind, path, text) => {
      const pendingId = await askDetached(`${kind} ${path} ${JSON.stringify(text)}`);
      const body =
        kind === 'rejection'
          ? { rejected: true, reject_reason: text }
          : path === 'answers.1.custom_text'
            ? {
                answers: [
                  { question_id: 'q1', selected_options: ['q1_opt1'] },
                  { question_id: 'q2', custom_text: text },
                ],
              }
            : {
                answers: [
                  { question_id: 'q1', selected_options: [text] },
                  { question_id: 'q2', custom_text: 'x' },
                ],
              };
      const reply = await read(await h.respond(pendingId, body));
      expect(reply.status, reply.text).toBe(400);
      expect(JSON.parse(reply.text)).toMatchObject({ code: 'invalid_text', details: [{ path }] });
      const rows = await h.rows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
    },
  );

  it.each(INVISIBLE_TEXTS)(
    'refuses an answer of only %j like an empty one, the bundle still pending',
    async (text) => {
      const pendingId = await askDetached(`invisible ${JSON.stringify(text)}`);
      const reply = await read(
        await h.respond(pendingId, {
          answers: [
            { question_id: 'q1', selected_options: ['q1_opt1'] },
            { question_id: 'q2', custom_text: text },
          ],
        }),
      );
      expect(reply.status, reply.text).toBe(400);
      expect(JSON.parse(reply.text)).toMatchObject({
        code: 'invalid_request',
        details: [{ path: 'answers.1', message: 'needs a selected option or custom text' }],
      });
      const rows = await h.rows(pendingId);
      expect(rows.map((row) => row.metadata.status)).toEqual(['pending', 'pending']);
    },
  );

  it('keeps emoji, CJK, combining marks and right-to-left text exactly as sent', async () => {
    const pendingId = await askDetached('round trip');
    const text =
      'Ship it 🚢👩🏽‍💻🏳️‍🌈 — 日本語のテキスト, e\u0301 n\u0303, שלום עולם, مرحبا\u200f, zero\u200bwidth';
    const reply = await read(
      await h.respond(pendingId, {
        answers: [
          { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '\u200b' },
          { question_id: 'q2', custom_text: `  ${text}  ` },
        ],
      }),
    );
    expect(reply.status, reply.text).toBe(200);
    const response = (JSON.parse(reply.text) as { response: { answers: unknown[] } }).response;
    // Trimmed, and invisible-only text beside an option kept as no text at all.
    expect(response.answers).toEqual([
      { question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' },
      { question_id: 'q2', selected_options: [], custom_text: text },
    ]);
    const found = await h.service.get(h.principals.member, pendingId);
    const view = found.ok ? found.view : undefined;
    expect(view?.response).toEqual(response);
  });
});
