/**
 * An ACP agent that asks through `elicitation/create` with the adapters' real
 * conventions: its question form is built by the Claude adapter's own
 * `askUserQuestionsToCreateRequest` (0.101.0), imported by resolved URL, so
 * the test exercises exactly what Claude Code sends. Written to a temporary
 * folder at test time and run by `node`.
 *
 * Keywords in the prompt: `/questions` (three questions, one multi-select),
 * `/give-up` (asks, then ends its turn without the answer once released),
 * `/url` (a URL elicitation), `/url-complete` (the same, completed by the
 * agent once released), `/url-fail` and `/url-exit` (the same, left open
 * while the prompt fails once released, or the process exits), `/url-then-exit`
 * (the same, left open past a normal end once released; the process exits once
 * released again, `url-then-exit-exit`), `/form` (a generic form), `/blank-choice-form` (a
 * form with a choice whose title shows nothing), `/enum-names-form` (choices
 * named by the older `enumNames`; `/enum-names-form blank` names one blank), `/caps` (the capabilities it
 * was given). Every prompt is echoed as `PROMPT <text>`, every reply as
 * `REPLY <json>`.
 *
 * "Once released": the agent goes on when the test calls `releaseAgent` with
 * the step's name (the keyword without its slash), once it saw what the agent
 * left open, rather than after a fixed wait that cost its length each time and
 * could end before a busy machine's test looked. `RELEASE_BOUND_MS` bounds the
 * wait should the test never release it.
 */
import { rmSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { THREE_QUESTIONS } from '../support/ask-user-questions.js';

const SDK = import.meta.resolve('@agentclientprotocol/sdk');
const CLAUDE_ELICITATION = import.meta
  .resolve('@agentclientprotocol/claude-agent-acp/dist/elicitation.js');

/** How long a step waits for its release before it goes on regardless. */
const RELEASE_BOUND_MS = 20_000;
const RELEASED = 'released-';

const AGENT = `
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '${SDK}';
import { askUserQuestionsToCreateRequest } from '${CLAUDE_ELICITATION}';

const QUESTIONS = ${JSON.stringify(THREE_QUESTIONS)};
let capabilities = null;
const cancelled = new Set();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once the test released \`step\` (a file beside this one), or after the bound. */
async function released(step) {
  const file = new URL('${RELEASED}' + step, import.meta.url);
  const deadline = Date.now() + ${RELEASE_BOUND_MS};
  while (!existsSync(file) && Date.now() < deadline) await sleep(20);
}

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
      await released('give-up');
      await say(client, sessionId, 'GAVE UP');
      return { stopReason: 'end_turn' };
    } else if (text.includes('/url-fail') || text.includes('/url-exit')) {
      // The link stays open while the turn fails: the prompt errs, or the process dies.
      elicit(client, {
        mode: 'url', sessionId, elicitationId: 'oauth-' + randomUUID(),
        message: 'Sign in to the issue tracker', url: 'https://tracker.example/login',
      }).catch(() => undefined);
      const exits = text.includes('/url-exit');
      await released(exits ? 'url-exit' : 'url-fail');
      if (exits) process.exit(3);
      throw new Error('the tracker is unreachable');
    } else if (text.includes('/url-then-exit')) {
      // The link outlives the turn, which ends normally; then the process dies.
      elicit(client, {
        mode: 'url', sessionId, elicitationId: 'oauth-' + randomUUID(),
        message: 'Sign in to the issue tracker', url: 'https://tracker.example/login',
      }).catch(() => undefined);
      await released('url-then-exit');
      released('url-then-exit-exit').then(() => process.exit(3));
      return { stopReason: 'end_turn' };
    } else if (text.includes('/url-complete')) {
      const elicitationId = 'oauth-' + randomUUID();
      const pending = elicit(client, {
        mode: 'url', sessionId, elicitationId,
        message: 'Sign in to the issue tracker', url: 'https://tracker.example/login',
      });
      await released('url-complete');
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

/** Lets the agent in `dir` go on past `step` (see "once released" above). */
export function releaseAgent(dir: string, step: string): void {
  writeFileSync(join(dir, `${RELEASED}${step}`), '');
}

/** Takes back every release in `dir`, so that the next test's steps wait again. */
export function withdrawReleases(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (name.startsWith(RELEASED)) rmSync(join(dir, name), { force: true });
  }
}
