/**
 * A real ACP agent that holds many requests open in one turn
 * (`flood-fixtures.ts`), on the whole server in this process over SQLite
 * (the registry counts in memory, whatever the store): as many as the bound
 * allows wait quietly, without Node calling the turn's signal a leak.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentProfiles } from '../../src/agents/profiles.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { OPEN_USER_INPUTS_PER_AGENT } from '../../src/tunables.js';
import { eventually } from '../support/clarification-harness.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { writeFloodAgent } from './flood-fixtures.js';

const ADMIN_TOKEN = 'acp-open-bound-admin-token-0123456789';
/** The agent process starts and floods before the requests are all open. */
const OPEN_WAIT_MS = 30_000;

describe('an ACP agent at its open-request bound', () => {
  let dir: string;
  let agentPath: string;
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;
  let api: ApiCall;
  let logLines: string[];
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'clarion-flood-'));
    agentPath = writeFloodAgent(dir);
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    process.off('warning', onWarning);
    warnings.length = 0;
    await server?.close();
    server = undefined;
    await database?.dispose();
    database = undefined;
  });

  async function serve(): Promise<RunningServer> {
    database = await freshDatabase('sqlite');
    logLines = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(line) });
    const agentProfiles = loadAgentProfiles({
      CLARION_AGENT_PROFILES: JSON.stringify({
        flooder: { command: process.execPath, args: [agentPath] },
      }),
    });
    server = await startServer(serverConfig(database, ADMIN_TOKEN, { agentProfiles }), logger);
    api = bearerApi(server.url, ADMIN_TOKEN);
    return server;
  }

  async function startTask(prompt: string): Promise<string> {
    const created = await api('POST', '/api/v1/tasks', {
      title: prompt,
      agent_profile: 'flooder',
      prompt,
    });
    expect(created.status).toBe(201);
    return (created.json.session as { id: string }).id;
  }

  it('holds as many permission requests as the bound allows in one turn without a listener-leak warning', async () => {
    const running = await serve();
    process.on('warning', onWarning);
    await startTask(`/flood ${OPEN_USER_INPUTS_PER_AGENT}`);
    await eventually(
      () => running.turns.userInputs.snapshot().length === OPEN_USER_INPUTS_PER_AGENT,
      OPEN_WAIT_MS,
    );
    // A warning is emitted on the next tick after the listener that crossed the limit.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  });
});
