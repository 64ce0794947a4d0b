/**
 * An ACP agent that asks through `elicitation/create` with the adapters' real
 * conventions: its question form is built by the Claude adapter's own
 * `askUserQuestionsToCreateRequest` (0.101.0), imported by resolved URL, so
 * the test exercises exactly what Claude Code sends. Written to a temporary
 * folder at test time and run by `node`.
 *
 * Keywords in the prompt: `/questions` (three questions, one multi-select),
 * `/give-up` (asks, then ends its turn after 1.5 s without the answer),
 * `/url` (a URL elicitation), `/url-complete` (the same, completed by the
 * agent after 1.5 s), `/url-fail` and `/url-exit` (the same, left open
 * while the prompt fails after 1.5 s, or the process exits), `/url-then-exit`
 * (the same, left open past a normal end; the process exits 1.5 s later), `/form` (a generic form), `/blank-choice-form` (a
 * form with a choice whose title shows nothing), `/enum-names-form` (choices
 * named by the older `enumNames`; `/enum-names-form blank` names one blank), `/caps` (the capabilities it
 * was given). Every prompt is echoed as `PROMPT <text>`, every reply as
 * `REPLY <json>`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { THREE_QUESTIONS } from '../support/ask-user-questions.js';

const SDK = import.meta.resolve('@agentclientprotocol/sdk');
const CLAUDE_ELICITATION = import.meta
  .resolve('@agentclientprotocol/claude-agent-acp/dist/elicitation.js');

const AGENT = `
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '${SDK}';
import { askUserQuestionsToCreateRequest } from '${CLAUDE_ELICITATION}';

const QUESTIONS = ${JSON.stringify(THREE_QUESTIONS)};
let capabilities = null;
const cancelled = new Set();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function say(client, sessionId, text) {
  await client.notify(methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: text + '\\n' } },
  });
}

function elicit(client, params) {
  return client.request(methods.client.elicitation.create, params);
}

/** An elicitation whose refusal is its reply: what the client's error said, not a thrown turn. */
function elicitOrRefused(client, params) {
  return elicit(client, params).catch((error) => ({
    refused: { code: error.code, message: error.message, data: error.data },
  }));
}

const app = agent({ name: 'elicitation-fixture' })
  .onRequest(methods.agent.initialize, (context) => {
    capabilities = context.params.clientCapabilities ?? null;
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false, promptCapabilities: {} },
    };
  })
  .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
  .onNotification(methods.agent.session.cancel, (context) => {
    cancelled.add(context.params.sessionId);
  })
  .onRequest(methods.agent.session.prompt, async (context) => {
    const { sessionId } = context.params;
    const client = context.client;
    cancelled.delete(sessionId);
    const text = context.params.prompt.map((block) => block.text ?? '').join('');
    await say(client, sessionId, 'PROMPT ' + text);
    let reply;
    if (text.includes('/questions')) {
      reply = await elicit(client, askUserQuestionsToCreateRequest(QUESTIONS, sessionId, 'toolu_q'));
    } else if (text.includes('/give-up')) {
      elicit(client, askUserQuestionsToCreateRequest(QUESTIONS, sessionId, 'toolu_g')).then(
        (late) => process.stderr.write('late reply ' + JSON.stringify(late) + '\\n'),
        () => undefined,
      );
      await sleep(1500);
      await say(client, sessionId, 'GAVE UP');
      return { stopReason: 'end_turn' };
    } else if (text.includes('/url-fail') || text.includes('/url-exit')) {
      // The link stays open while the turn fails: the prompt errs, or the process dies.
      elicit(client, {
        mode: 'url', sessionId, elicitationId: 'oauth-' + randomUUID(),
        message: 'Sign in to the issue tracker', url: 'https://tracker.example/login',
      }).catch(() => undefined);
      await sleep(1500);
      if (text.includes('/url-exit')) process.exit(3);
      throw new Error('the tracker is unreachable');
    } else if (text.includes('/url-then-exit')) {
      // The link outlives the turn, which ends normally; then the process dies.
      elicit(client, {
        mode: 'url', sessionId, elicitationId: 'oauth-' + randomUUID(),
        message: 'Sign in to the issue tracker', url: 'https://tracker.example/login',
      }).catch(() => undefined);
      await sleep(1500);
      setTimeout(() => process.exit(3), 1500);
      return { stopReason: 'end_turn' };
    } else if (text.includes('/url-complete')) {
      const elicitationId = 'oauth-' + randomUUID();
      const pending = elicit(client, {
        mode: 'url', sessionId, elicitationId,
        message: 'Sign in to the issue tracker', url: 'https://tracker.example/login',
      });
      await sleep(1500);
      await client.notify(methods.client.elicitation.complete, { elicitationId });
      reply = await pending;
    } else if (text.includes('/url')) {
      reply = await elicit(client, {
        mode: 'url', sessionId, elicitationId: 'oauth-' + randomUUID(),
        message: 'Sign in to the issue tracker', url: 'https://tracker.example/login',
      });
    } else if (text.includes('/enum-names-form')) {
      const blank = text.includes('blank');
      reply = await elicitOrRefused(client, {
        mode: 'form', sessionId, message: 'Your plan',
        requestedSchema: {
          type: 'object',
          properties: {
            plan: {
              type: 'string', title: 'Plan', enum: ['p_free_1', 'p_team_2'],
              enumNames: ['Free plan', blank ? '\u2800' : 'Team plan'],
            },
          },
          required: ['plan'],
        },
      });
    } else if (text.includes('/blank-choice-form')) {
      reply = await elicitOrRefused(client, {
        mode: 'form', sessionId, message: 'Your plan',
        requestedSchema: {
          type: 'object',
          properties: {
            plan: {
              type: 'string', title: 'Plan',
              oneOf: [{ const: 'free', title: 'Free' }, { const: 'team', title: '\u200b\u2800' }],
            },
          },
          required: ['plan'],
        },
      });
    } else if (text.includes('/form')) {
      reply = await elicit(client, {
        mode: 'form', sessionId, message: 'Your details',
        requestedSchema: {
          type: 'object',
          properties: {
            email: { type: 'string', title: 'Email', format: 'email' },
            seats: { type: 'integer', title: 'Seats', minimum: 1, maximum: 9 },
            plan: { type: 'string', title: 'Plan', enum: ['free', 'team'] },
          },
          required: ['email', 'plan'],
        },
      });
    } else if (text.includes('/caps')) {
      await say(client, sessionId, 'CAPS ' + JSON.stringify(capabilities));
    }
    if (reply !== undefined) await say(client, sessionId, 'REPLY ' + JSON.stringify(reply));
    return { stopReason: cancelled.has(sessionId) ? 'cancelled' : 'end_turn' };
  });
const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
process.exit(0);
`;

/** Writes the agent into `dir`; returns its path. */
export function writeElicitationAgent(dir: string): string {
  const path = join(dir, 'elicitation-agent.mjs');
  writeFileSync(path, AGENT);
  return path;
}
