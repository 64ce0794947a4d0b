/**
 * Agent programs the supervisor suites run, written to a temporary folder
 * at test time (plain ES modules for node; the SDK is imported by its
 * resolved URL, so they run from anywhere).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SDK = import.meta.resolve('@agentclientprotocol/sdk');

const AUTH_REQUIRED_AGENT = `/**
 * An ACP agent that answers \`initialize\` and refuses every \`session/new\` the
 * way real agents do without a key: "Authentication required". It says why
 * on stderr first, as they do.
 */
import { Readable, Writable } from 'node:stream';
import {
  agent,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from '${SDK}';

const app = agent({ name: 'auth-required' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false, promptCapabilities: {} },
    authMethods: [{ id: 'api-key', name: 'API key', description: 'Set FIXTURE_API_KEY' }],
  }))
  .onRequest(methods.agent.session.new, () => {
    process.stderr.write('no FIXTURE_API_KEY in the environment\\n');
    throw RequestError.authRequired();
  });
const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
process.exit(0);
`;

const STUBBORN_WRAPPER = `/**
 * A wrapper the way npm launchers are: it starts the real program as a child
 * that shares its stdio, and never speaks ACP itself. The child ignores
 * SIGTERM and outlives the wrapper, holding the pipes open; only SIGKILL to
 * the group ends it. Both write their pids to \`$PID_FILE\`.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const file = process.env.PID_FILE;
if (process.argv[2] === 'child') {
  process.on('SIGTERM', () => {
    process.stderr.write('child: ignoring SIGTERM\\n');
  });
  appendFileSync(file, \`child \${process.pid}\\n\`);
  setInterval(() => undefined, 60_000);
} else {
  appendFileSync(file, \`wrapper \${process.pid}\\n\`);
  spawn(process.execPath, [new URL(import.meta.url).pathname, 'child'], { stdio: 'inherit' });
  setInterval(() => undefined, 60_000);
}
`;

const DEAF_AGENT = `/**
 * An ACP agent that takes a prompt containing \`/hang\` and never answers
 * it, ignoring \`session/cancel\` (a wedged agent); any other prompt it
 * answers at once with \`You said: <text>\`. Each process appends its pid to
 * \`$PID_FILE\`.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '${SDK}';

appendFileSync(process.env.PID_FILE, \`agent \${process.pid}\\n\`);
const app = agent({ name: 'deaf' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false, promptCapabilities: {} },
  }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
  .onNotification(methods.agent.session.cancel, () => {
    process.stderr.write('deaf: ignoring session/cancel\\n');
  })
  .onRequest(methods.agent.session.prompt, async (context) => {
    const { sessionId } = context.params;
    const text = context.params.prompt.map((block) => block.text ?? '').join('');
    if (text.includes('/hang')) return new Promise(() => undefined);
    await context.client.notify(methods.client.session.update, {
      sessionId,
      update: {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'You said: ' + text },
      },
    });
    return { stopReason: 'end_turn' };
  });
const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
process.exit(0);
`;

const UNTAKING_AGENT = `/**
 * An ACP agent whose first process never takes a prompt: asked to open its
 * session, it stops reading stdin and sends request after request before it
 * answers, so Clarion's answers fill the pipe and every later message (the
 * prompt, the cancel) waits behind them, never written. It appends \`untaking <pid>\` to
 * \`$PID_FILE\`. Every later process is the deaf agent (\`$DEAF_AGENT\`).
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const file = process.env.PID_FILE;
if (existsSync(file) && readFileSync(file, 'utf8').includes('untaking ')) {
  await import(process.env.DEAF_AGENT);
} else {
  appendFileSync(file, \`untaking \${process.pid}\\n\`);
  const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const message = JSON.parse(line);
    if (message.method === 'initialize') {
      send({
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          agentCapabilities: { loadSession: false, promptCapabilities: {} },
        },
      });
    } else if (message.method === 'session/new') {
      // Reads nothing more, and asks far more than a pipe holds of answers before the session
      // opens: Clarion's answers are queued ahead of any prompt, which so never gets written.
      lines.close();
      process.stdin.pause();
      for (let i = 0; i < 5000; i += 1) send({ id: 'flood-' + i, method: '_untaking/flood', params: {} });
      send({ id: message.id, result: { sessionId: randomUUID() } });
      setInterval(() => undefined, 60_000);
    }
  });
}
`;

export interface Fixtures {
  /** An ACP agent whose `session/new` answers "Authentication required". */
  authRequired: string;
  /** A wrapper whose child ignores SIGTERM and holds the pipes; both append their pids to `$PID_FILE`. */
  stubborn: string;
  /** An ACP agent that never answers a `/hang` prompt and ignores the cancel; pids to `$PID_FILE`. */
  deaf: string;
  /** First process: never takes a prompt (stops reading stdin); later ones: `deaf` (`$DEAF_AGENT`). */
  untaking: string;
}

export function writeFixtures(dir: string): Fixtures {
  const fixtures = {
    authRequired: join(dir, 'auth-required-agent.mjs'),
    stubborn: join(dir, 'stubborn-wrapper.mjs'),
    deaf: join(dir, 'deaf-agent.mjs'),
    untaking: join(dir, 'untaking-agent.mjs'),
  };
  writeFileSync(fixtures.authRequired, AUTH_REQUIRED_AGENT);
  writeFileSync(fixtures.stubborn, STUBBORN_WRAPPER);
  writeFileSync(fixtures.deaf, DEAF_AGENT);
  writeFileSync(fixtures.untaking, UNTAKING_AGENT);
  return fixtures;
}
