/**
 * An agent's `session/request_permission` through the consent handler into
 * the registry, on both stores: a request that can be shown reaches a person
 * (a long title cut, its whole text among the details, the agent's text made
 * storable), and one that cannot is refused with its reason for the ACP host
 * to log, never silently.
 */
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Driver } from '../../src/store/index.js';
import { ConsentNotAsked, consentHandler } from '../../src/turns/user-input-bridge.js';
import {
  MAX_CONSENT_OPTIONS,
  MAX_USER_INPUT_TITLE_CHARS,
  USER_INPUT_DECISION_TYPE,
  USER_INPUT_ENDED_TYPE,
} from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS } from '../support/databases.js';
import {
  decisionMessages,
  decisionRows,
  listedConsent,
  turnsHarness,
  type TurnsHarness,
} from '../support/turns-harness.js';

const OPTIONS: RequestPermissionRequest['options'] = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always Allow', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** A 2,000-character shell command, as long scripts agents run are. */
const LONG_COMMAND =
  `for f in src/*.ts; do npx prettier --check "$f"; done && ${'echo checked; '.repeat(200)}`.slice(
    0,
    2_000,
  );

/** A Bash call as Claude's ACP adapter asks for it: the command as the title, the description as content. */
function bashRequest(sessionId: string, command: string): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      toolCallId: 'toolu_01',
      title: `\`${command}\``,
      kind: 'execute',
      status: 'pending',
      content: [{ type: 'content', content: { type: 'text', text: 'Check formatting' } }],
      rawInput: { command, description: 'Check formatting' },
    },
    options: OPTIONS,
  };
}

/** Makes every decision row fail to be written, as a full disk or a failing store would. */
async function refuseDecisionRows(h: TurnsHarness, driver: Driver): Promise<void> {
  const type = `'${USER_INPUT_DECISION_TYPE}'`;
  if (driver === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER refuse_decisions BEFORE INSERT ON task_session_messages
         WHEN NEW.type = ${type} BEGIN SELECT RAISE(ABORT, 'no room for decisions'); END`,
      )
      .execute(h.store.db);
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION refuse_decisions() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.type = ${type} THEN RAISE EXCEPTION 'no room for decisions'; END IF;
         RETURN NEW;
       END $$`,
    )
    .execute(h.store.db);
  await sql
    .raw(
      `CREATE TRIGGER refuse_decisions BEFORE INSERT ON task_session_messages
       FOR EACH ROW EXECUTE FUNCTION refuse_decisions()`,
    )
    .execute(h.store.db);
}

async function allowDecisionRows(h: TurnsHarness, driver: Driver): Promise<void> {
  const on = driver === 'sqlite' ? '' : ' ON task_session_messages';
  await sql.raw(`DROP TRIGGER refuse_decisions${on}`).execute(h.store.db);
}

describe.each(DRIVERS)('permission requests on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;
  let handler: ReturnType<typeof consentHandler>;

  beforeEach(async () => {
    h = await turnsHarness(driver);
    sessionId = (await h.createTask('format the sources')).session.id;
    handler = consentHandler({ store: h.store }, () => h.turns.userInputs);
  });

  afterEach(async () => {
    await h.dispose();
  });

  const ask = (request: RequestPermissionRequest) =>
    handler(sessionId, request, {
      turnId: undefined,
      signal: new AbortController().signal,
      ended: new AbortController().signal,
    });

  const pendingConsent = () => listedConsent(h, sessionId);

  it('a 2,000-character Bash command reaches a person: title cut, the whole command among the details', async () => {
    const request = bashRequest(sessionId, LONG_COMMAND);
    const answer = ask(request);
    const consent = await pendingConsent();

    expect(consent).toMatchObject({ kind: 'consent', status: 'awaiting', tool_key: 'execute' });
    expect(consent.title.length).toBeLessThanOrEqual(MAX_USER_INPUT_TITLE_CHARS);
    expect(consent.title.endsWith('…')).toBe(true);
    expect(request.toolCall.title?.startsWith(consent.title.slice(0, -1))).toBe(true);
    expect(consent.details).toEqual([
      { type: 'text', text: `\`${LONG_COMMAND}\`` },
      { type: 'text', text: 'Check formatting' },
    ]);
    expect(h.turns.userInputs.pendingActionOf(sessionId)).toBe('consent');

    const chosen = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'allow',
    });
    expect(chosen.status).toBe(200);
    expect(await answer).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
  });

  it('stamps its times in the one wire format, nine fractional digits, on REST and in events', async () => {
    const nineDigits = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;
    const answer = ask(bashRequest(sessionId, 'npm test'));
    const consent = await pendingConsent();
    expect(consent.created_at).toMatch(nineDigits);
    expect(consent.deadline_at).toMatch(nineDigits);

    const chosen = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'allow',
    });
    const { request } = (await chosen.json()) as { request: { created_at: string } };
    expect(request.created_at).toBe(consent.created_at);
    await answer;

    const stamps = h.events.events.flatMap((event) =>
      'request' in event ? [event.request.created_at, event.request.deadline_at ?? ''] : [],
    );
    expect(stamps.length).toBeGreaterThanOrEqual(2);
    for (const stamp of stamps.filter((value) => value !== '')) expect(stamp).toMatch(nineDigits);
  });

  it('a command already in the details is not repeated when its title is cut', async () => {
    const request = bashRequest(sessionId, LONG_COMMAND);
    request.toolCall.content = [];
    void ask(request);
    const consent = await pendingConsent();
    expect(consent.title.endsWith('…')).toBe(true);
    expect(consent.details).toEqual([{ type: 'text', text: LONG_COMMAND }]);
  });

  it('a NUL in a title and a label is dropped: the decision is kept in the transcript', async () => {
    const request = bashRequest(sessionId, 'rm -rf build\u0000');
    request.options = [
      { optionId: 'allow', name: 'Allow\u0000 once', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ];
    const answer = ask(request);
    const consent = await pendingConsent();
    expect(consent.title).toBe('`rm -rf build`');
    expect(consent.options[0]).toEqual({
      option_id: 'allow',
      label: 'Allow once',
      kind: 'allow_once',
    });

    const chosen = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'allow',
    });
    expect(chosen.status).toBe(200);
    expect(await answer).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
    await h.turns.userInputs.drain();
    await eventually(async () => {
      const rows = await decisionMessages(h, sessionId);
      return rows.some((row) => row.content.includes('chose "Allow once"'));
    });
  });

  it('a decision that cannot be kept in the transcript is not given: 503, the agent still waits, a retry is kept', async () => {
    const answer = ask(bashRequest(sessionId, 'npm publish'));
    let heard = false;
    void answer.then(() => (heard = true));
    const consent = await pendingConsent();
    await refuseDecisionRows(h, driver);

    const refused = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'allow',
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'temporarily_unavailable' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toBe(false);
    expect(await decisionRows(h, sessionId)).toEqual([]);
    expect((await pendingConsent()).status).toBe('awaiting');

    await allowDecisionRows(h, driver);
    const chosen = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'reject',
    });
    expect(chosen.status).toBe(200);
    expect(await answer).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
    const rows = await decisionRows(h, sessionId);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0] ?? '{}')).toMatchObject({
      option_id: 'reject',
      responded_by: { surface: 'rest' },
    });
  });

  it('an untitled call is asked as "Run a tool"; more options than the limit keep one of each kind', async () => {
    const many = Array.from({ length: MAX_CONSENT_OPTIONS + 4 }, (_, index) => ({
      optionId: `allow-${index}`,
      name: `Allow ${index}`,
      kind: 'allow_once' as const,
    }));
    void ask({
      sessionId,
      toolCall: { toolCallId: 'call-2', title: '  ' },
      options: [...many, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }],
    });
    const consent = await pendingConsent();
    expect(consent).toMatchObject({ title: 'Run a tool', tool_key: 'Run a tool' });
    expect(consent.options).toHaveLength(MAX_CONSENT_OPTIONS);
    expect(consent.options.at(-1)).toMatchObject({ option_id: 'reject', kind: 'reject_once' });
  });

  it('options a person would read as one choice are shown once: the first stands for them, and only it can be chosen', async () => {
    const request = bashRequest(sessionId, 'npm test');
    request.options = [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'allow-again', name: 'Allow', kind: 'allow_once' },
      { optionId: 'allow-once', name: 'allow once', kind: 'allow_once' },
      { optionId: 'allow-cyrillic', name: '\u0410llow', kind: 'allow_once' },
      // Named alike but of another kind: every surface says "Always allow", so it stays.
      { optionId: 'always', name: 'Allow', kind: 'allow_always' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      { optionId: 'reject-again', name: 'Reject', kind: 'reject_once' },
    ];
    const answer = ask(request);
    const consent = await pendingConsent();
    expect(consent.options).toEqual([
      { option_id: 'allow', label: 'Allow', kind: 'allow_once' },
      { option_id: 'always', label: 'Allow', kind: 'allow_always' },
      { option_id: 'reject', label: 'Reject', kind: 'reject_once' },
    ]);

    const twin = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'reject-again',
    });
    expect(twin.status).toBe(400);
    expect((await pendingConsent()).status).toBe('awaiting');
    const chosen = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'reject',
    });
    expect(chosen.status).toBe(200);
    expect(await answer).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
  });

  it('an "always" covers the command the person was shown, not every call under the same title', async () => {
    /** A shell call whose title does not name its command: the card shows the command as a detail. */
    const shell = (toolCallId: string, title: string | undefined, command: string) => ({
      sessionId,
      toolCall: { toolCallId, title, kind: 'execute' as const, rawInput: { command } },
      options: OPTIONS,
    });
    for (const [index, title] of ['Run a shell command', undefined].entries()) {
      const first = ask(shell(`call-${index}-a`, title, 'npm test'));
      const consent = await pendingConsent();
      expect(consent.details).toEqual([{ type: 'text', text: 'npm test' }]);
      const chosen = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
        option_id: 'allow_always',
      });
      expect(chosen.status).toBe(200);
      expect(await first).toEqual({ outcome: { outcome: 'selected', optionId: 'allow_always' } });

      // The same title, another command: the person never saw it, so a person is asked.
      const other = ask(shell(`call-${index}-b`, title, 'rm -rf ~'));
      const asked = await pendingConsent();
      expect(asked).toMatchObject({ status: 'awaiting', details: [{ text: 'rm -rf ~' }] });
      const rejected = await h.request('POST', `/api/v1/user-inputs/${asked.id}/respond`, {
        option_id: 'reject',
      });
      expect(rejected.status).toBe(200);
      expect(await other).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });

      // The command the person allowed is answered by their rule, once: the agent keeps no grant.
      expect(await ask(shell(`call-${index}-c`, title, 'npm test'))).toEqual({
        outcome: { outcome: 'selected', optionId: 'allow' },
      });
    }
  });

  it('a request that comes once its turn was cancelled is not allowed, not even by a standing "always"', async () => {
    const first = ask(bashRequest(sessionId, 'npm test'));
    const consent = await pendingConsent();
    await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'allow_always',
    });
    expect(await first).toEqual({ outcome: { outcome: 'selected', optionId: 'allow_always' } });
    const decided = (await decisionRows(h, sessionId)).length;
    const requested = h.events.events.filter((e) => e.type === 'user_input.requested').length;

    // The person pressed Stop: the agent's next request comes with its turn already cancelled.
    const stopped = new AbortController();
    stopped.abort();
    const late = await handler(sessionId, bashRequest(sessionId, 'npm test'), {
      turnId: undefined,
      signal: stopped.signal,
      ended: new AbortController().signal,
    });
    expect(late).toEqual({ outcome: { outcome: 'cancelled' } });
    // Nobody was shown it and nothing was decided for it.
    expect(await decisionRows(h, sessionId)).toHaveLength(decided);
    expect(h.events.events.filter((e) => e.type === 'user_input.requested')).toHaveLength(
      requested,
    );
  });

  it('a Stop that ends its turn names it in the transcript as ended by the Stop; nobody decided it', async () => {
    const answer = ask(bashRequest(sessionId, 'npm test'));
    const consent = await pendingConsent();
    expect((await h.request('POST', `/api/v1/sessions/${sessionId}/cancel`)).status).toBe(202);
    await h.pump.idle();
    expect(await answer).toEqual({ outcome: { outcome: 'cancelled' } });

    const { messages } = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/messages`)
    ).json()) as {
      messages: { author: string; type: string; content: string; metadata: unknown }[];
    };
    // After the Stop's own line, which says who stopped it: one note, worded from its metadata.
    expect(messages.slice(-2)).toEqual([
      expect.objectContaining({ author: 'system', content: 'Cancelled by member' }),
      {
        ...messages.at(-1),
        author: 'system',
        type: USER_INPUT_ENDED_TYPE,
        content: `The agent's permission request "${consent.title}" ended unanswered: its turn was stopped.`,
        metadata: {
          request_id: consent.id,
          kind: 'consent',
          title: consent.title,
          loss: 'stopped',
        },
      },
    ]);
    expect(await decisionRows(h, sessionId)).toEqual([]);
    const late = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'allow',
    });
    expect(late.status).toBe(409);
  });

  it('an "always" for a titled command does not cover a shorter command its title contains', async () => {
    const shell = (toolCallId: string, command: string) => ({
      sessionId,
      toolCall: {
        toolCallId,
        title: 'rm -rf /tmp/scratch',
        kind: 'execute' as const,
        rawInput: { command },
      },
      options: OPTIONS,
    });
    const first = ask(shell('call-a', 'rm -rf /tmp/scratch'));
    const consent = await pendingConsent();
    const chosen = await h.request('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: 'allow_always',
    });
    expect(chosen.status).toBe(200);
    expect(await first).toEqual({ outcome: { outcome: 'selected', optionId: 'allow_always' } });

    // The same title, and a command the title merely contains: the person never allowed it.
    const other = ask(shell('call-b', 'rm -rf /'));
    const asked = await pendingConsent();
    expect(asked).toMatchObject({ status: 'awaiting', details: [{ text: 'rm -rf /' }] });
    const rejected = await h.request('POST', `/api/v1/user-inputs/${asked.id}/respond`, {
      option_id: 'reject',
    });
    expect(rejected.status).toBe(200);
    expect(await other).toEqual({ outcome: { outcome: 'selected', optionId: 'reject' } });
  });

  it('a request with no option a person can choose is refused with its reason, and nothing waits', async () => {
    const request = bashRequest(sessionId, 'ls');
    request.options = [{ optionId: ' ', name: 'Allow', kind: 'allow_once' }];
    const refused = ask(request);
    await expect(refused).rejects.toBeInstanceOf(ConsentNotAsked);
    await expect(refused).rejects.toThrow(/at least one option is required/);
    expect(h.turns.userInputs.snapshot()).toEqual([]);
  });
});
