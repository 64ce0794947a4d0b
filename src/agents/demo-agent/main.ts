/**
 * Entry point of the demo agent process: `node dist/node/demo-agent.js`, the bundle
 * `node.vite.config.ts` builds.
 * Stdout is the ACP channel, so every diagnostic goes to stderr. Exits once
 * the client closes stdin.
 */
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { detachAfterMs } from './commands.js';
import { createDemoAgent } from './demo-agent.js';

const log = (message: string) => {
  process.stderr.write(`[demo-agent] ${message}\n`);
};

// A bad setting stops the agent before it speaks ACP: Clarion's start then fails quoting this line.
const detachAfter = detachAfterMs(process.env);
if (!detachAfter.ok) {
  log(detachAfter.message);
  process.exit(2);
}
const demo = createDemoAgent(log, { detachAfterMs: detachAfter.ms });
const connection = demo.app.connect(
  ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  ),
);
await connection.closed;
await demo.close();
// Open MCP sockets must not keep an agent alive once its client has gone.
process.exit(0);
