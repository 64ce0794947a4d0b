/**
 * An ACP agent that asks at the edges of its turn, each step held until the
 * test writes a file beside it, so a race test lands its event where it means
 * to. Its asks are a permission request, a form or a link to open
 * (`elicitation/create`), by the prompt's `<kind>` (`permission`, `form`,
 * `url`), and `<tag>` names the files of one run:
 *
 * - `/withdraw <kind> <tag>` asks, withdraws its own request
 *   (`$/cancel_request`) once `<tag>.go` exists, and ends its turn once
 *   `<tag>.done` exists.
 * - `/end-while-opening <kind> <tag>` asks, asks again once `<tag>.go`
 *   exists, and ends its turn once `<tag>.end` exists, neither answered.
 *
 * What each ask heard is written to `<tag>-<n>.json` (`{ reply }` or
 * `{ error }`): a turn's updates stop with it, a file does not. Written to a
 * temporary folder at test time and run by `node`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SDK = import.meta.resolve('@agentclientprotocol/sdk');

const AGENT = `
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '${SDK}';

const fileOf = (name) => new URL('./' + name, import.meta.url);

async function whenTold(name) {
  for (let waited = 0; !existsSync(fileOf(name)) && waited < 60_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function ask(client, sessionId, kind, n, cancellationSignal) {
  if (kind === 'url') {
    return client.request(methods.client.elicitation.create, {
      mode: 'url', sessionId, elicitationId: 'link-' + n, message: 'Sign in ' + n,
      url: 'https://tracker.example/login/' + n,
    }, { cancellationSignal });
  }
  if (kind === 'form') {
    return client.request(methods.client.elicitation.create, {
      mode: 'form', sessionId, message: 'Details ' + n,
      requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } } },
    }, { cancellationSignal });
  }
  return client.request(methods.client.session.requestPermission, {
    sessionId,
    options: [
      { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
    ],
    toolCall: { toolCallId: 'call-' + n, title: 'Run step ' + n, kind: 'execute', status: 'pending' },
  }, { cancellationSignal });
}

function heard(tag, n, asked) {
  const report = (said) => writeFileSync(fileOf(tag + '-' + n + '.json'), JSON.stringify(said));
  return asked.then(
    (reply) => report({ reply }),
    (error) => report({ error: { code: error.code, message: error.message } }),
  );
}

const app = agent({ name: 'edge-request-fixture' })
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
    const withdraw = /\\/withdraw (\\w+) (\\S+)/.exec(text);
    if (withdraw) {
      const [, kind, tag] = withdraw;
      const call = new AbortController();
      const asked = heard(tag, 1, ask(client, sessionId, kind, 1, call.signal));
      await whenTold(tag + '.go');
      call.abort();
      await asked;
      await whenTold(tag + '.done');
    }
    const ending = /\\/end-while-opening (\\w+) (\\S+)/.exec(text);
    if (ending) {
      const [, kind, tag] = ending;
      void heard(tag, 1, ask(client, sessionId, kind, 1));
      await whenTold(tag + '.go');
      void heard(tag, 2, ask(client, sessionId, kind, 2));
      await whenTold(tag + '.end');
    }
    return { stopReason: 'end_turn' };
  });
const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
process.exit(0);
`;

/** Writes the agent into `dir`, where its files go too; returns its path. */
export function writeEdgeRequestAgent(dir: string): string {
  const path = join(dir, 'edge-request-agent.mjs');
  writeFileSync(path, AGENT);
  return path;
}
