/**
 * Issue 13 (MCP fixes): what `tools/list` offers, on the real server with
 * the SDK's client. `request_user_action` is listed only to an agent inside
 * a Clarion session, the one caller that can use it, and `answer_question`
 * only to a person, the one who may decide; the instructions `initialize`
 * sends are true for the caller's kind (only an agent Clarion started is
 * resumed by a late answer; anyone else must collect it with
 * wait_for_answer); and every tool's input
 * schema states the limits of `wire/limits.ts`, the ones the resolver
 * enforces (custom text: 2000 code points, accepted up to exactly that).
 *
 * The listing does not depend on the dialect, so this runs on SQLite only.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.js';
import { firstAdmin, listMemberWorkspaces } from '../../src/store/index.js';
import {
  MAX_ACTION_INSTRUCTIONS_CHARS,
  MAX_ACTION_TITLE_CHARS,
  MAX_ANSWER_TEXT_CODE_POINTS,
  MAX_CONTEXT_CHARS,
  MAX_CURSOR_CHARS,
  MAX_ID_CHARS,
  MAX_OPTIONS,
  MAX_OPTION_DESCRIPTION_CHARS,
  MAX_OPTION_LABEL_CHARS,
  MAX_PENDING_ID_CHARS,
  MAX_PENDING_PAGE,
  MAX_PROMPT_CHARS,
  MAX_QUESTIONS,
  MAX_QUESTION_TITLE_CHARS,
  MAX_URL_CHARS,
  MAX_WAIT_SECONDS,
  MIN_OPTIONS,
} from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { startInProcessServer, type InProcessServer } from '../support/in-process-server.js';
import { seedAdminSession } from '../support/seed.js';
import { structured as structuredOf, toolErrorText as errorTextOf } from './mcp-harness.js';

const ADMIN_TOKEN = 'tool-listing-admin-token-0123456789';

type Schema = Record<string, unknown>;
type Tools = Awaited<ReturnType<Client['listTools']>>['tools'];

const structured = (result: unknown) => structuredOf(result as CallToolResult);
const toolErrorText = (result: unknown) => errorTextOf(result as CallToolResult);

async function sdkClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'listing-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** The sub-schema at a path of property names, `[]` stepping into array items. */
function at(schema: Schema, path: string): Schema {
  let node: Schema = schema;
  for (const step of path.split('.')) {
    const next =
      step === '[]' ? node.items : (node.properties as Record<string, unknown> | undefined)?.[step];
    if (next === undefined) throw new Error(`no ${step} in ${path}`);
    node = next as Schema;
  }
  return node;
}

/** Every string and array sub-schema, with its path, for the "nothing unbounded" check. */
function leaves(schema: Schema, path = ''): { path: string; schema: Schema }[] {
  const found: { path: string; schema: Schema }[] = [];
  if (schema.type === 'string' || schema.type === 'array') found.push({ path, schema });
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    found.push(...leaves(child, path === '' ? name : `${path}.${name}`));
  }
  if (schema.items) found.push(...leaves(schema.items as Schema, `${path}.[]`));
  return found;
}

/** Each tool's advertised bound, read from the wire limits it must equal. */
const EXPECTED_BOUNDS: Record<string, Record<string, Schema>> = {
  ask_user_question: {
    questions: { minItems: 1, maxItems: MAX_QUESTIONS },
    'questions.[].title': { maxLength: MAX_QUESTION_TITLE_CHARS },
    'questions.[].prompt': { minLength: 1, maxLength: MAX_PROMPT_CHARS },
    'questions.[].options': { minItems: MIN_OPTIONS, maxItems: MAX_OPTIONS },
    'questions.[].options.[].label': { minLength: 1, maxLength: MAX_OPTION_LABEL_CHARS },
    'questions.[].options.[].description': {
      minLength: 1,
      maxLength: MAX_OPTION_DESCRIPTION_CHARS,
    },
    'questions.[].id': { pattern: `^[A-Za-z0-9_.-]{1,${MAX_ID_CHARS}}$` },
    'questions.[].options.[].id': { pattern: `^[A-Za-z0-9_.-]{1,${MAX_ID_CHARS}}$` },
    context: { maxLength: MAX_CONTEXT_CHARS },
  },
  wait_for_answer: {
    pending_id: { minLength: 1, maxLength: MAX_PENDING_ID_CHARS },
    timeout_seconds: { minimum: 1, maximum: MAX_WAIT_SECONDS },
  },
  list_pending_questions: {
    cursor: { minLength: 1, maxLength: MAX_CURSOR_CHARS },
    limit: { minimum: 1, maximum: MAX_PENDING_PAGE },
  },
  answer_question: {
    pending_id: { minLength: 1, maxLength: MAX_PENDING_ID_CHARS },
    answers: { maxItems: MAX_QUESTIONS },
    'answers.[].question_id': { minLength: 1, maxLength: MAX_ID_CHARS },
    'answers.[].selected_options': { maxItems: MAX_OPTIONS },
    'answers.[].selected_options.[]': { minLength: 1, maxLength: MAX_ID_CHARS },
    'answers.[].custom_text': { maxLength: MAX_ANSWER_TEXT_CODE_POINTS },
    reject_reason: { maxLength: MAX_ANSWER_TEXT_CODE_POINTS },
  },
  request_user_action: {
    title: { minLength: 1, maxLength: MAX_ACTION_TITLE_CHARS },
    instructions: { minLength: 1, maxLength: MAX_ACTION_INSTRUCTIONS_CHARS },
    url: { maxLength: MAX_URL_CHARS },
  },
};

const EVERY_TOOL = Object.keys(EXPECTED_BOUNDS).sort();

describe('tools/list on the real server', () => {
  let running: InProcessServer;
  let agentToken: string;
  let externalToken: string;
  let sessionId: string;
  const clients: Client[] = [];

  async function connect(token: string): Promise<Client> {
    const client = await sdkClient(`${running.server.url}/mcp`, token);
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    running = await startInProcessServer('sqlite', ADMIN_TOKEN);
    const { store } = running.server;
    sessionId = await seedAdminSession(store, 'listing');
    const admin = await firstAdmin(store);
    if (!admin || (await listMemberWorkspaces(store, admin.id)).length === 0) {
      throw new Error('no admin');
    }
    agentToken = (await issueToken(store, { kind: 'agent', userId: admin.id, sessionId })).secret;
    externalToken = (
      await issueToken(store, { kind: 'external_agent', userId: admin.id, name: 'listing' })
    ).secret;
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await running.dispose();
  });

  it('offers request_user_action to an agent in its session, answer_question to a person', async () => {
    const listed = async (token: string) =>
      (await (await connect(token)).listTools()).tools.map((tool) => tool.name).sort();
    const except = (...names: string[]) => EVERY_TOOL.filter((name) => !names.includes(name));
    expect(await listed(agentToken)).toEqual(except('answer_question'));
    expect(await listed(externalToken)).toEqual(except('answer_question', 'request_user_action'));
    expect(await listed(ADMIN_TOKEN)).toEqual(except('request_user_action'));
  });

  it('refuses answer_question to an agent that calls it unlisted, and decides nothing', async () => {
    for (const token of [agentToken, externalToken]) {
      const refused = (await (
        await connect(token)
      ).callTool({
        name: 'answer_question',
        arguments: { pending_id: 'some-pending-id', rejected: true },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(toolErrorText(refused)).toContain('Tool answer_question not found');
    }
  });

  it('tells only an agent Clarion started that a late answer arrives by itself', async () => {
    const instructions = async (token: string) => (await connect(token)).getInstructions() ?? '';
    const started = await instructions(agentToken);
    expect(started).toContain('the answer arrives later');
    for (const token of [externalToken, ADMIN_TOKEN]) {
      const text = await instructions(token);
      expect(text).not.toContain('arrives later');
      expect(text).toContain('nothing arrives by itself');
      expect(text).toContain('call wait_for_answer with its pending_id');
    }
    expect(await instructions(externalToken)).toContain('list_pending_questions');
    expect(await instructions(ADMIN_TOKEN)).toContain('answer_question');
  });

  it('states the wire limits in every input schema, and leaves nothing unbounded', async () => {
    // An agent is offered everything but answer_question, which only a person is.
    const tools: Tools = [
      ...(await (await connect(agentToken)).listTools()).tools,
      ...(await (await connect(ADMIN_TOKEN)).listTools()).tools.filter(
        (tool) => tool.name === 'answer_question',
      ),
    ];
    for (const [name, bounds] of Object.entries(EXPECTED_BOUNDS)) {
      const schema = tools.find((tool) => tool.name === name)?.inputSchema as Schema | undefined;
      if (!schema) throw new Error(`${name} is not listed`);
      // An unknown argument is refused, never dropped (a misspelt `url` must not vanish).
      expect(schema.additionalProperties, `${name} takes unknown arguments`).toBe(false);
      for (const [path, expected] of Object.entries(bounds)) {
        expect(at(schema, path), `${name} ${path}`).toMatchObject(expected);
      }
      for (const leaf of leaves(schema)) {
        const bounded =
          leaf.schema.type === 'array'
            ? typeof leaf.schema.maxItems === 'number'
            : typeof leaf.schema.maxLength === 'number' || typeof leaf.schema.pattern === 'string';
        expect(bounded, `${name} ${leaf.path} advertises no bound`).toBe(true);
      }
    }
  });

  it('refuses an action request with an unknown argument instead of dropping it', async () => {
    const agent = await connect(agentToken);
    const refused = (await agent.callTool({
      name: 'request_user_action',
      arguments: { title: 'Connect GitHub', instructions: 'Open the link', link: 'https://x.test' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(toolErrorText(refused)).toContain('link');
  });

  it('accepts custom text of exactly the advertised length in code points, and not one more', async () => {
    const agent = await connect(agentToken);
    const person = await connect(ADMIN_TOKEN);
    const asked = agent.callTool({
      name: 'ask_user_question',
      arguments: {
        questions: [
          {
            prompt: 'Anything to add?',
            options: [
              { label: 'No', description: 'Nothing' },
              { label: 'Yes', description: 'See the text' },
            ],
          },
        ],
      },
    });
    let pendingId = '';
    await eventually(async () => {
      const page = structured(await person.callTool({ name: 'list_pending_questions' }));
      const bundle = (page.pending as { pending_id: string; session_id: string }[]).find(
        (candidate) => candidate.session_id === sessionId,
      );
      pendingId = bundle?.pending_id ?? '';
      return pendingId !== '';
    });
    // Astral characters: two UTF-16 units each, one code point, as JSON Schema counts.
    const answer = (length: number) => ({
      pending_id: pendingId,
      answers: [{ question_id: 'q1', custom_text: '😀'.repeat(length) }],
    });
    const tooLong = await person.callTool({
      name: 'answer_question',
      arguments: answer(MAX_ANSWER_TEXT_CODE_POINTS + 1),
    });
    expect(toolErrorText(tooLong)).toContain(`at most ${MAX_ANSWER_TEXT_CODE_POINTS}`);
    const accepted = structured(
      await person.callTool({
        name: 'answer_question',
        arguments: answer(MAX_ANSWER_TEXT_CODE_POINTS),
      }),
    );
    expect(accepted).toMatchObject({ claimed: true, status: 'answered' });
    const result = structured(await asked);
    expect(result).toMatchObject({ status: 'answered', pending_id: pendingId });
  });
});
