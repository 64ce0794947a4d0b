/**
 * An agent's own question channel, ACP elicitation, end to end (issue 13):
 * the built server as a real process, a real ACP agent that sends what
 * Claude's adapter sends (`elicitation-fixtures.ts`), and a person on the
 * REST API. A question form is a clarification bundle with every rule of
 * DESIGN §5; a URL elicitation is an action request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ACP_REFUSAL_ERROR_CODE,
  USER_INPUT_ENDED_TYPE,
  USER_INPUT_REFUSED_TYPE,
} from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { releaseAgent, withdrawReleases, writeElicitationAgent } from './elicitation-fixtures.js';
import { clarionApi } from './supervisor-support.js';

const ADMIN_TOKEN = 'elicitation-flows-admin-token-0123456789';

interface Bundle {
  pending_id: string;
  session_id: string;
  context: string;
  questions: {
    question_id: string;
    title: string;
    prompt: string;
    multi_select: boolean;
    options: { option_id: string; label: string; description: string }[];
  }[];
}

describe('ACP elicitation through Clarion', () => {
  let dir: string;
  let agentPath: string;
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let api: ReturnType<typeof clarionApi>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'clarion-elicitation-'));
    agentPath = writeElicitationAgent(dir);
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await database?.dispose();
    database = undefined;
    withdrawReleases(dir);
  });

  async function serve(existing?: TestDatabase): Promise<void> {
    database = existing ?? (await freshDatabase('sqlite'));
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: ADMIN_TOKEN,
      CLARION_AGENT_PROFILES: JSON.stringify({
        asker: { command: process.execPath, args: [agentPath] },
      }),
    });
    api = clarionApi(server.url, ADMIN_TOKEN);
  }

  /** The task of each session a test started, to read the session's state. */
  const taskOf = new Map<string, string>();

  async function startTask(prompt: string): Promise<string> {
    const created = await api('POST', '/api/v1/tasks', {
      title: prompt,
      agent_profile: 'asker',
      prompt,
    });
    expect(created.status).toBe(201);
    const session = created.json.session as { id: string; task_id: string };
    taskOf.set(session.id, session.task_id);
    return session.id;
  }

  async function sessionOf(sessionId: string): Promise<{ state: string } | undefined> {
    const listed = await api('GET', `/api/v1/tasks/${taskOf.get(sessionId) ?? ''}/sessions`);
    return (listed.json.sessions as { id: string; state: string }[]).find(
      (session) => session.id === sessionId,
    );
  }

  async function listedRequestIds(): Promise<string[]> {
    const list = await api('GET', '/api/v1/user-inputs');
    return (list.json.requests as { id: string }[]).map((request) => request.id);
  }

  async function agentText(sessionId: string): Promise<string> {
    const page = await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    return (page.json.messages as { author: string; type: string; content: string }[])
      .filter((message) => message.author === 'agent' && message.type === 'message')
      .map((message) => message.content)
      .join('\n');
  }

  /** The agent's reply line, parsed, once it has one. */
  async function replyOf(sessionId: string): Promise<unknown> {
    let line: string | undefined;
    await eventually(async () => {
      line = /REPLY (.*)/.exec(await agentText(sessionId))?.[1];
      return line !== undefined;
    }, 20_000);
    return JSON.parse(line ?? 'null');
  }

  async function pendingBundle(sessionId: string): Promise<Bundle> {
    let found: Bundle | undefined;
    await eventually(async () => {
      const list = await api('GET', '/api/v1/pending');
      found = (list.json.bundles as Bundle[]).find((bundle) => bundle.session_id === sessionId);
      return found !== undefined;
    }, 20_000);
    if (!found) throw new Error('no bundle');
    return found;
  }

  async function userInputOf(sessionId: string, kind: string): Promise<{ id: string }> {
    let found: { id: string } | undefined;
    await eventually(async () => {
      const list = await api('GET', '/api/v1/user-inputs');
      found = (list.json.requests as { id: string; kind: string; session_id: string }[]).find(
        (request) => request.session_id === sessionId && request.kind === kind,
      );
      return found !== undefined;
    }, 20_000);
    if (!found) throw new Error(`no ${kind} request`);
    return found;
  }

  async function actionRequest(sessionId: string): Promise<{ id: string; title: string }> {
    let found: { id: string; title: string; kind: string; url: string | null } | undefined;
    await eventually(async () => {
      const list = await api('GET', '/api/v1/user-inputs');
      found = (
        list.json.requests as { id: string; title: string; kind: string; session_id: string }[]
      ).find(
        (request) => request.session_id === sessionId && request.kind === 'action',
      ) as typeof found;
      return found !== undefined;
    }, 20_000);
    if (!found) throw new Error('no action request');
    expect(found).toMatchObject({
      title: 'Sign in to the issue tracker',
      url: 'https://tracker.example/login',
    });
    return found;
  }

  const THREE_ANSWERS = {
    answers: [
      { question_id: 'question_0', selected_options: ['question_0_opt_2'] },
      {
        question_id: 'question_1',
        selected_options: ['question_1_opt_1', 'question_1_opt_2'],
        custom_text: 'Types, too',
      },
      { question_id: 'question_2', custom_text: 'Five' },
    ],
  };

  it('advertises form and URL elicitation as objects, and a three-question form answered in the inbox reaches the agent as the content it reads', async () => {
    await serve();
    const caps = await startTask('/caps');
    await eventually(async () => (await agentText(caps)).includes('CAPS'), 20_000);
    expect(await agentText(caps)).toContain('"elicitation":{"form":{},"url":{}}');

    const sessionId = await startTask('/questions');
    const bundle = await pendingBundle(sessionId);
    expect(bundle.context).toBe('Please answer the following questions.');
    expect(bundle.questions.map((question) => [question.title, question.multi_select])).toEqual([
      ['Database', false],
      ['Checks', true],
      ['Replicas', false],
    ]);
    expect(bundle.questions[1]).toMatchObject({
      prompt: 'Which checks run on every push?',
      options: [
        { option_id: 'question_1_opt_1', label: 'Lint', description: 'eslint and prettier' },
        { option_id: 'question_1_opt_2', label: 'Tests', description: 'the unit suite' },
        { option_id: 'question_1_opt_3', label: 'Bench', description: 'the ratios' },
      ],
    });
    const answered = await api(
      'POST',
      `/api/v1/clarification/${bundle.pending_id}/respond`,
      THREE_ANSWERS,
    );
    expect(answered.status).toBe(200);
    expect(await replyOf(sessionId)).toEqual({
      action: 'accept',
      content: {
        question_0: 'SQLite',
        question_1: ['Lint', 'Tests'],
        question_1_custom: 'Types, too',
        question_2_custom: 'Five',
      },
    });
  }, 90_000);

  it('declines a skip, and cancels on a turn cancel and on an operator cancel', async () => {
    await serve();
    const skipped = await startTask('/questions');
    const skipBundle = await pendingBundle(skipped);
    await api('POST', `/api/v1/clarification/${skipBundle.pending_id}/respond`, {
      rejected: true,
    });
    expect(await replyOf(skipped)).toEqual({ action: 'decline' });

    const cancelled = await startTask('/questions');
    await pendingBundle(cancelled);
    expect((await api('POST', `/api/v1/sessions/${cancelled}/cancel`)).status).toBeLessThan(300);
    expect(await replyOf(cancelled)).toEqual({ action: 'cancel' });

    const operator = await startTask('/questions');
    const operatorBundle = await pendingBundle(operator);
    const cancel = await api('POST', `/api/v1/clarification/${operatorBundle.pending_id}/cancel`);
    expect(cancel.status).toBe(200);
    expect(await replyOf(operator)).toEqual({ action: 'cancel' });
  }, 90_000);

  it('asks any other flat form as a form request: content the schema refuses changes nothing, valid content is accepted, decline is decline', async () => {
    await serve();
    const accepted = await startTask('/form');
    const request = await userInputOf(accepted, 'form');
    const refused = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      decision: 'accept',
      content: { email: 'not an address', seats: 12 },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('invalid_form_content');
    expect((await userInputOf(accepted, 'form')).id).toBe(request.id);
    const content = { email: 'ada@example.com', seats: 3, plan: 'team' };
    const sent = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      decision: 'accept',
      content,
    });
    expect(sent.status).toBe(200);
    expect(await replyOf(accepted)).toEqual({ action: 'accept', content });

    const declined = await startTask('/form');
    const second = await userInputOf(declined, 'form');
    await api('POST', `/api/v1/user-inputs/${second.id}/respond`, { decision: 'decline' });
    expect(await replyOf(declined)).toEqual({ action: 'decline' });
  }, 90_000);

  it('refuses a form with a choice that shows nothing as an error naming it, asks no one, and logs the field and option', async () => {
    await serve();
    const sessionId = await startTask('/blank-choice-form');
    // Not `decline`: the agent would read that as the person's skip of a form nobody saw.
    expect(await replyOf(sessionId)).toEqual({
      refused: {
        code: ACP_REFUSAL_ERROR_CODE,
        message: expect.stringMatching(
          /^Clarion cannot show this form to a person, so nobody was asked: properties\.plan\.oneOf\.1\.title: option "team" has a blank title/,
        ) as unknown,
        data: expect.objectContaining({ code: 'invalid_request' }) as unknown,
      },
    });
    const list = await api('GET', '/api/v1/user-inputs');
    const asked = (list.json.requests as { session_id: string }[]).filter(
      (request) => request.session_id === sessionId,
    );
    expect(asked).toEqual([]);
    // The person learns of it from the transcript, which says why.
    const page = await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    const notes = (page.json.messages as { type: string; metadata: unknown }[]).filter(
      (message) => message.type === USER_INPUT_REFUSED_TYPE,
    );
    expect(notes).toEqual([
      expect.objectContaining({
        metadata: expect.objectContaining({
          kind: 'form',
          code: 'unshowable',
          problems: [expect.stringContaining('option "team" has a blank title')],
        }) as unknown,
      }),
    ]);
    // The log line is written as the refusal is sent, but reaches the process's stdout later.
    await eventually(
      () =>
        server
          ?.output()
          .stdout.includes('properties.plan.oneOf.1.title: option \\"team\\" has a blank title') ===
        true,
    );
  }, 90_000);

  it('shows a form’s choices by the names its enumNames give, and refuses one named blank', async () => {
    await serve();
    const named = await startTask('/enum-names-form');
    const request = await userInputOf(named, 'form');
    const shown = (await api('GET', '/api/v1/user-inputs')).json.requests as {
      id: string;
      schema: { properties: Record<string, { enumNames?: string[] }> };
    }[];
    expect(
      shown.find((candidate) => candidate.id === request.id)?.schema.properties.plan?.enumNames,
    ).toEqual(['Free plan', 'Team plan']);
    await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      decision: 'accept',
      content: { plan: 'p_team_2' },
    });
    expect(await replyOf(named)).toEqual({ action: 'accept', content: { plan: 'p_team_2' } });

    const blank = await startTask('/enum-names-form blank');
    expect(await replyOf(blank)).toMatchObject({
      refused: {
        code: ACP_REFUSAL_ERROR_CODE,
        message: expect.stringContaining('properties.plan.enumNames.1') as unknown,
      },
    });
    await eventually(
      () => server?.output().stdout.includes('properties.plan.enumNames.1') === true,
    );
  }, 90_000);

  it('takes a late answer after the agent gave up, and resumes it in a new turn', async () => {
    await serve();
    const sessionId = await startTask('/give-up');
    const bundle = await pendingBundle(sessionId);
    releaseAgent(dir, 'give-up');
    await eventually(async () => (await agentText(sessionId)).includes('GAVE UP'), 20_000);
    const late = await api(
      'POST',
      `/api/v1/clarification/${bundle.pending_id}/respond`,
      THREE_ANSWERS,
    );
    expect(late.status).toBe(200);
    await eventually(
      async () => (await agentText(sessionId)).includes('they have now answered'),
      20_000,
    );
    const text = await agentText(sessionId);
    expect(text).toContain('The user selected "SQLite"');
    expect(text).toContain('The user selected "Lint", "Tests" and wrote "Types, too"');
  }, 90_000);

  it('keeps a pending question across a restart of Clarion, and its answer resumes the agent', async () => {
    await serve();
    const sessionId = await startTask('/questions');
    const bundle = await pendingBundle(sessionId);
    const kept = database;
    if (!server || !kept) throw new Error('not serving');
    await server.stop();
    server = undefined;
    database = undefined;
    await serve(kept);
    const late = await api(
      'POST',
      `/api/v1/clarification/${bundle.pending_id}/respond`,
      THREE_ANSWERS,
    );
    expect(late.status).toBe(200);
    await eventually(
      async () => (await agentText(sessionId)).includes('they have now answered'),
      20_000,
    );
    expect(await agentText(sessionId)).toContain('wrote "Five"');
  }, 90_000);

  it('asks to open a URL as an action: Done is accept, Skip is decline, the agent completing it is accept', async () => {
    await serve();
    const done = await startTask('/url');
    const doneRequest = await actionRequest(done);
    const answered = await api('POST', `/api/v1/user-inputs/${doneRequest.id}/respond`, {
      decision: 'done',
    });
    expect(answered.status).toBe(200);
    expect(await replyOf(done)).toEqual({ action: 'accept' });
    // The agent's own call carried on from the answer: it is settled, with no follow-up prompt.
    await eventually(async () => {
      const list = await api('GET', '/api/v1/user-inputs');
      return !(list.json.requests as { id: string }[]).some((r) => r.id === doneRequest.id);
    }, 20_000);
    const page = await api('GET', `/api/v1/sessions/${done}/messages?limit=500`);
    const prompts = (page.json.messages as { author: string; content: string }[]).filter(
      (message) => message.author === 'user' && message.content.startsWith('Continue.'),
    );
    expect(prompts).toEqual([]);

    const skipped = await startTask('/url');
    const skipRequest = await actionRequest(skipped);
    await api('POST', `/api/v1/user-inputs/${skipRequest.id}/respond`, { decision: 'skip' });
    expect(await replyOf(skipped)).toEqual({ action: 'decline' });

    const completed = await startTask('/url-complete');
    const completedRequest = await actionRequest(completed);
    releaseAgent(dir, 'url-complete');
    expect(await replyOf(completed)).toEqual({ action: 'accept' });
    const after = await api('POST', `/api/v1/user-inputs/${completedRequest.id}/respond`, {
      decision: 'done',
    });
    expect(after.status).toBe(409);
  }, 90_000);

  it.each([
    ['its prompt fails', '/url-fail', 'conflict'],
    ['its agent exits', '/url-exit', 'agent_exited'],
  ])(
    'ends a link left open when %s: it leaves the inbox, and a late Done is refused',
    async (_when, prompt, code) => {
      await serve();
      const sessionId = await startTask(prompt);
      const request = await actionRequest(sessionId);
      releaseAgent(dir, prompt.slice(1));
      await eventually(async () => {
        const list = await api('GET', '/api/v1/user-inputs');
        return !(list.json.requests as { id: string }[]).some((r) => r.id === request.id);
      }, 20_000);
      const late = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
        decision: 'done',
      });
      expect(late.status).toBe(409);
      expect(late.json).toMatchObject({ code });
    },
    60_000,
  );

  // An action outlives a normal end (the person may still do it), but not the agent that asked.
  it('ends a link that outlived its turn once its agent exits: a late Done is refused, not sent on', async () => {
    await serve();
    const sessionId = await startTask('/url-then-exit');
    const request = await actionRequest(sessionId);
    releaseAgent(dir, 'url-then-exit');
    // The turn ends normally, and the link outlives it; only then does the agent exit.
    await eventually(async () => (await sessionOf(sessionId))?.state === 'idle', 20_000);
    expect(await listedRequestIds()).toContain(request.id);
    releaseAgent(dir, 'url-then-exit-exit');
    await eventually(async () => {
      const list = await api('GET', '/api/v1/user-inputs');
      return !(list.json.requests as { id: string }[]).some((r) => r.id === request.id);
    }, 20_000);
    const late = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      decision: 'done',
    });
    expect(late.status).toBe(409);
    // Said as what ended it, as for a link its own turn's end named: the agent stopped.
    expect(late.json.code).toBe('agent_exited');
    const page = await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    const ended = (page.json.messages as { type: string; metadata: unknown }[]).filter(
      (message) => message.type === USER_INPUT_ENDED_TYPE,
    );
    expect(ended).toEqual([
      expect.objectContaining({
        metadata: {
          request_id: request.id,
          kind: 'action',
          title: 'Sign in to the issue tracker',
          loss: 'agent_exited',
        },
      }),
    ]);
  }, 60_000);
});
