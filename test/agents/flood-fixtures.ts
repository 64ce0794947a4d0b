/**
 * An ACP agent that holds many requests open in one turn, as a busy agent
 * does: `/flood N` sends N `session/request_permission` at once (`+retry`: each
 * refused one once more), `+form`
 * then one form `elicitation/create`; `/ask N` sends N forms of one question
 * each (the adapters' question convention). Each answer is reported as
 * `RESULT <n> <json>` (the form's as `RESULT form <json>`, question n's as `RESULT q<n>`), each JSON-RPC
 * error as `ERROR <n> {code, message, data}`; the turn ends once all are
 * answered. Written to a temporary folder at test time and run by `node`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SDK = import.meta.resolve('@agentclientprotocol/sdk');

const AGENT = `
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '${SDK}';

async function say(client, sessionId, text) {
  await client.notify(methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: text + '\\n' } },
  });
}

const OPTIONS = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
];

function permission(client, sessionId, n) {
  return client.request(methods.client.session.requestPermission, {
    sessionId,
    options: OPTIONS,
    toolCall: { toolCallId: 'call-' + n, title: 'Run step ' + n, kind: 'execute', status: 'pending' },
  });
}

function form(client, sessionId) {
  return client.request(methods.client.elicitation.create, {
    mode: 'form', sessionId, message: 'One more form',
    requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } } },
  });
}

/** A form in the adapters' question convention, so Clarion asks it as a question. */
function question(client, sessionId, n) {
  return client.request(methods.client.elicitation.create, {
    mode: 'form', sessionId, message: 'Question ' + n,
    requestedSchema: {
      type: 'object',
      properties: {
        question_1: {
          type: 'string', title: 'Pick',
          oneOf: [{ const: 'a', title: 'A' }, { const: 'b', title: 'B' }],
        },
        question_1_custom: { type: 'string' },
      },
    },
  });
}

const GO = new URL('./form-go', import.meta.url);

function link(client, sessionId) {
  return client.request(methods.client.elicitation.create, {
    mode: 'url', sessionId, elicitationId: 'link-' + randomUUID(),
    message: 'Sign in to the tracker', url: 'https://tracker.example/login',
  });
}

async function lastWhenTold(client, sessionId, ask) {
  for (let waited = 0; !existsSync(GO) && waited < 60_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return ask(client, sessionId);
}

/** Asks again once if refused, as an agent that retries does; the first refusal is reported too. */
async function retriedOnce(client, sessionId, n, ask) {
  try {
    return await ask();
  } catch (error) {
    await say(client, sessionId, 'ERROR ' + n + ' ' +
      JSON.stringify({ code: error.code, message: error.message, data: error.data }));
    return ask();
  }
}

function reported(client, sessionId, n, asked) {
  return asked.then(
    (reply) => say(client, sessionId, 'RESULT ' + n + ' ' + JSON.stringify(reply)),
    (error) => say(client, sessionId, 'ERROR ' + n + ' ' +
      JSON.stringify({ code: error.code, message: error.message, data: error.data })),
  );
}

const app = agent({ name: 'flood-fixture' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false, promptCapabilities: {} },
  }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
  .onNotification(methods.agent.session.cancel, () => undefined)
  .onRequest(methods.agent.session.prompt, async (context) => {
    const { sessionId } = context.params;
    const client = context.client;
    const text = context.params.prompt.map((block) => block.text ?? '').join('');
    const questions = /\\/ask (\\d+)/.exec(text);
    if (questions) {
      const calls = [];
      for (let n = 1; n <= Number(questions[1]); n += 1) {
        calls.push(reported(client, sessionId, 'q' + n, question(client, sessionId, n)));
      }
      await Promise.all(calls);
    }
    const flood = /\\/flood (\\d+)/.exec(text);
    if (flood) {
      const calls = [];
      for (let n = 1; n <= Number(flood[1]); n += 1) {
        const ask = () => permission(client, sessionId, n);
        const asked = text.includes('+retry') ? retriedOnce(client, sessionId, n, ask) : ask();
        calls.push(reported(client, sessionId, n, asked));
      }
      if (text.includes('+form')) {
        calls.push(reported(client, sessionId, 'form', lastWhenTold(client, sessionId, form)));
      }
      if (text.includes('+link')) {
        calls.push(reported(client, sessionId, 'link', lastWhenTold(client, sessionId, link)));
      }
      await Promise.all(calls);
    }
    return { stopReason: 'end_turn' };
  });
const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
process.exit(0);
`;

/** Writes the agent into `dir`; returns its path. */
export function writeFloodAgent(dir: string): string {
  const path = join(dir, 'flood-agent.mjs');
  writeFileSync(path, AGENT);
  return path;
}
