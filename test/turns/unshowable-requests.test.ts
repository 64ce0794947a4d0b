/**
 * An agent's request Clarion cannot show a person (a form past the limits a
 * person's form may have, a kind Clarion does not know) is refused to the
 * agent with an error; the person learns of it from a note in the session's
 * transcript saying what was not shown and why, once per turn however often
 * the agent retries, and never holding the refused request itself. Both
 * dialects, with the elicitation bridge called as the ACP host calls it.
 */
import type { CreateElicitationRequest, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentRequestRefused } from '../../src/agents/acp-host/index.js';
import { silentLogger } from '../../src/observability/logger.js';
import { elicitationHandlers } from '../../src/turns/elicitation-bridge.js';
import { formRequester } from '../../src/turns/index.js';
import { ConsentNotAsked, consentHandler } from '../../src/turns/user-input-bridge.js';
import {
  formSchema,
  MAX_FORM_FIELDS,
  MAX_FORM_MESSAGE_CHARS,
  USER_INPUT_REFUSED_TYPE,
} from '../../src/wire/index.js';
import { DRIVERS } from '../support/databases.js';
import { turnsHarness, type TurnsHarness } from '../support/turns-harness.js';

interface Message {
  type: string;
  author: string;
  content: string;
  metadata: Record<string, unknown>;
}

describe.each(DRIVERS)('an agent request Clarion cannot show, on %s', (driver) => {
  let h: TurnsHarness;
  let sessionId: string;
  let turnId: string;

  beforeEach(async () => {
    h = await turnsHarness(driver);
    const body = await h.createTask('first');
    sessionId = body.session.id;
    await h.settled();
    const turn = h.host.prompts.at(-1);
    if (!turn) throw new Error('no turn ran');
    turnId = turn.turnId;
  });

  afterEach(async () => {
    await h.dispose();
  });

  const refusals = () => ({ sessions: () => h.sessions, logger: silentLogger });

  function bridge(logger = silentLogger) {
    return elicitationHandlers({
      store: h.store,
      clarification: () => h.service,
      registry: () => h.turns.userInputs,
      requestForm: formRequester({ store: h.store }, () => h.turns.userInputs, refusals()),
      refusals: { sessions: () => h.sessions, logger },
      logger,
    });
  }

  function elicit(request: CreateElicitationRequest) {
    const open = new AbortController().signal;
    return bridge().onElicitation(sessionId, request, {
      turnId,
      signal: open,
      withdrawn: open,
      ended: open,
    });
  }

  async function notes(): Promise<Message[]> {
    const page = (await (
      await h.request('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)
    ).json()) as { messages: Message[] };
    return page.messages.filter((message) => message.type === USER_INPUT_REFUSED_TYPE);
  }

  /** A flat form with one field more than a person's form may have. */
  const tooManyFields = {
    sessionId: 'agent-session',
    mode: 'form',
    message: 'Tell me about the deployment',
    requestedSchema: {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, n) => [
          `field_${n}`,
          { type: 'string', title: `Field ${n}`, description: 'x'.repeat(500) },
        ]),
      ),
    },
  } as unknown as CreateElicitationRequest;

  it('refuses a form with too many fields to the agent and notes it once per turn, without the form', async () => {
    await expect(elicit(tooManyFields)).rejects.toBeInstanceOf(AgentRequestRefused);
    // The agent tries again: refused again, noted once.
    await expect(elicit(tooManyFields)).rejects.toBeInstanceOf(AgentRequestRefused);
    const [note, ...more] = await notes();
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      author: 'system',
      metadata: {
        kind: 'form',
        title: 'Tell me about the deployment',
        code: 'unshowable',
        problems: [expect.stringContaining('properties')],
      },
    });
    expect(note?.content).toContain('"Tell me about the deployment" was not shown');
    // The refused form itself is not kept: none of its fields' text is in the note.
    expect(JSON.stringify(note)).not.toContain('x'.repeat(100));
    expect(JSON.stringify(note)).not.toContain('Field 3');
  });

  it('notes a kind of request Clarion does not know', async () => {
    const nested = {
      sessionId: 'agent-session',
      mode: 'form',
      message: 'Pick a region',
      requestedSchema: {
        type: 'object',
        properties: { region: { type: 'object', properties: {} } },
      },
    } as unknown as CreateElicitationRequest;
    await expect(elicit(nested)).rejects.toBeInstanceOf(AgentRequestRefused);
    expect((await notes()).map((note) => note.metadata)).toEqual([
      {
        kind: 'form',
        title: 'Pick a region',
        code: 'unshowable',
        problems: ['field region is not a flat form field'],
      },
    ]);
  });

  it('notes a link Clarion will not show, naming why', async () => {
    const link = {
      sessionId: 'agent-session',
      mode: 'url',
      elicitationId: 'oauth-1',
      message: 'Sign in to the tracker',
      url: 'javascript:alert(1)',
    } as unknown as CreateElicitationRequest;
    await expect(elicit(link)).rejects.toBeInstanceOf(AgentRequestRefused);
    expect(h.turns.userInputs.snapshot()).toEqual([]);
    expect((await notes()).map((note) => note.metadata)).toEqual([
      {
        kind: 'action',
        title: 'Sign in to the tracker',
        code: 'unshowable',
        problems: [expect.stringContaining('url')],
      },
    ]);
  });

  it.each([
    [
      'a link (an MCP sign-in while the agent starts)',
      {
        sessionId: 'agent-session',
        mode: 'url',
        elicitationId: 'oauth-2',
        message: 'Sign in to the tracker',
        url: 'https://tracker.example/oauth',
      },
      { kind: 'action', title: 'Sign in to the tracker' },
    ],
    [
      'a form',
      {
        sessionId: 'agent-session',
        mode: 'form',
        message: 'Deploy settings',
        requestedSchema: { type: 'object', properties: { env: { type: 'string' } } },
      },
      { kind: 'form', title: 'Deploy settings' },
    ],
  ])(
    'logs and notes %s that arrives outside any turn; the agent hears cancel',
    async (_, request, noted) => {
      const logger = silentLogger.child({});
      const warn = vi.spyOn(logger, 'warn');
      const gone = AbortSignal.abort();
      const reply = bridge(logger).onElicitation(sessionId, request, {
        turnId: undefined,
        signal: gone,
        withdrawn: gone,
        ended: gone,
      });
      await expect(reply).resolves.toEqual({ action: 'cancel' });
      expect(h.turns.userInputs.snapshot()).toEqual([]);
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({ sessionId, kind: noted.kind }),
        expect.stringContaining('outside a turn'),
      );
      const [note, ...more] = await notes();
      expect(more).toEqual([]);
      expect(note).toMatchObject({
        author: 'system',
        metadata: { ...noted, code: 'outside_turn' },
      });
      expect(note?.content).toContain(`"${noted.title}" was not shown`);
    },
  );

  it('refuses a form whose message is too long to show as an error naming it, not a cancel, and notes it', async () => {
    const requestForm = formRequester({ store: h.store }, () => h.turns.userInputs, refusals());
    const message = `Deploy settings\n${'y'.repeat(MAX_FORM_MESSAGE_CHARS)}`;
    const refused = requestForm({
      sessionId,
      turnId,
      message,
      schema: formSchema.parse({ properties: { env: { type: 'string' } } }),
      signal: new AbortController().signal,
    });
    await expect(refused).rejects.toThrow(/message is too long/);
    expect(h.turns.userInputs.snapshot()).toEqual([]);
    const [note, ...more] = await notes();
    expect(more).toEqual([]);
    expect(note?.metadata).toEqual({
      kind: 'form',
      title: 'Deploy settings',
      code: 'unshowable',
      problems: ['message is too long'],
    });
    expect(JSON.stringify(note)).not.toContain('y'.repeat(100));
  });

  it('logs and notes a permission request that arrives outside any turn; the agent hears cancelled', async () => {
    const logger = silentLogger.child({});
    const warn = vi.spyOn(logger, 'warn');
    const ask = consentHandler({ store: h.store }, () => h.turns.userInputs, {
      sessions: () => h.sessions,
      logger,
    });
    const request: RequestPermissionRequest = {
      sessionId: 'agent-session',
      toolCall: { toolCallId: 'toolu_02', title: 'Run npm ci', kind: 'execute' },
      options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
    };
    const gone = AbortSignal.abort();
    const reply = ask(sessionId, request, { turnId: undefined, signal: gone, ended: gone });
    await expect(reply).resolves.toEqual({ outcome: { outcome: 'cancelled' } });
    expect(h.turns.userInputs.snapshot()).toEqual([]);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ sessionId, kind: 'consent' }),
      expect.stringContaining('outside a turn'),
    );
    expect((await notes()).map((note) => note.metadata)).toEqual([
      { kind: 'consent', title: 'Run npm ci', code: 'outside_turn' },
    ]);
  });

  it('notes a permission request with no option a person can choose; the agent hears it was not allowed', async () => {
    const ask = consentHandler({ store: h.store }, () => h.turns.userInputs, refusals());
    const request: RequestPermissionRequest = {
      sessionId: 'agent-session',
      toolCall: { toolCallId: 'toolu_01', title: 'Run npm test', kind: 'execute' },
      options: [{ optionId: ' ', name: 'Allow', kind: 'allow_once' }],
    };
    const open = new AbortController().signal;
    const refused = ask(sessionId, request, { turnId, signal: open, ended: open });
    await expect(refused).rejects.toBeInstanceOf(ConsentNotAsked);
    expect(h.turns.userInputs.snapshot()).toEqual([]);
    expect((await notes()).map((note) => note.metadata)).toEqual([
      {
        kind: 'consent',
        title: 'Run npm test',
        code: 'unshowable',
        problems: ['at least one option is required'],
      },
    ]);
  });
});
