/**
 * An agent process that writes tens of MB to stderr without a line break:
 * the server holds one line's cap of it, so the line's clipped start is in
 * the failure tail while the agent still writes nothing else, and the lines
 * around it arrive whole.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAgent, type AgentProcess } from '../../src/agents/acp-host/agent-process.js';
import { silentLogger } from '../../src/observability/logger.js';
import { systemTimers } from '../../src/support/timers.js';
import { eventually } from '../support/clarification-harness.js';

/**
 * 32 MB of `a` with no line break; once they are written and anything arrives
 * on stdin, the line's end and one more.
 */
const ENDLESS_LINE = `
const chunk = Buffer.alloc(1 << 20, 'a');
let written = 0;
function more() {
  while (written < 32) {
    written += 1;
    if (!process.stderr.write(chunk)) return process.stderr.once('drain', more);
  }
  process.stdin.once('data', () => process.stderr.write('\\nafter 語\\n'));
}
process.stderr.write('before\\n');
more();
setTimeout(() => {}, 60_000);
`;

describe('an agent writing stderr without a line break', () => {
  let agent: AgentProcess | undefined;

  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
  });

  it('is clipped as it arrives, the lines around it whole', async () => {
    const started = await spawnAgent({
      command: process.execPath,
      args: ['-e', ENDLESS_LINE],
      env: {},
      cwd: process.cwd(),
      logger: silentLogger,
      timers: systemTimers,
      onIncoming: () => undefined,
      onWritten: () => undefined,
    });
    agent = started;
    const clipped = `${'a'.repeat(3999)}…`;
    // Before any line break: a reader that held the whole line would show nothing of it yet.
    await eventually(() => started.stderrTail().includes(clipped), 15_000);
    expect(started.stderrTail()).toEqual(['before', clipped]);

    const writer = started.stream.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', method: 'wake' });
    writer.releaseLock();
    await eventually(() => started.stderrTail().length === 3);
    expect(started.stderrTail()).toEqual(['before', clipped, 'after 語']);
  });
});
