/**
 * An ACP agent that asks to run a shell command the way Claude Code's adapter
 * does: `session/request_permission` with kind `execute` and the command as
 * the tool call's title. The prompt is the command. Written to a temporary
 * folder at test time and run by `node`; every reply is said as
 * `RESULT <json>`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SDK = import.meta.resolve('@agentclientprotocol/sdk');

const AGENT = `
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { agent, methods, ndJsonStream, PROTOCOL_VERSION } from '${SDK}';

const OPTIONS = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
];

const app = agent({ name: 'shell-permission-fixture' })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false, promptCapabilities: {} },
  }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
  .onNotification(methods.agent.session.cancel, () => undefined)
  .onRequest(methods.agent.session.prompt, async (context) => {
    const { sessionId } = context.params;
    const client = context.client;
    const command = context.params.prompt.map((block) => block.text ?? '').join('').trim();
    const reply = await client.request(methods.client.session.requestPermission, {
      sessionId,
      options: OPTIONS,
      toolCall: {
        toolCallId: 'call-' + randomUUID(),
        title: command,
        kind: 'execute',
        status: 'pending',
        rawInput: { command },
      },
    });
    await client.notify(methods.client.session.update, {
      sessionId,
      update: {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'RESULT ' + JSON.stringify(reply) + '\\n' },
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

/** Writes the agent into `dir`; returns its path. */
export function writeShellPermissionAgent(dir: string): string {
  const path = join(dir, 'shell-permission-agent.mjs');
  writeFileSync(path, AGENT);
  return path;
}
