/**
 * What one "Always allow" covers: the command the person was shown, no more
 * (tnew report item 3). A real ACP agent asks as Claude Code's adapter does,
 * kind `execute` with the command as the title, on SQLite and PostgreSQL.
 * Another command of the same kind, or one that merely starts alike, asks a
 * person; the same command again is answered by the rule. A rule kept under
 * a bare kind before rules named their command answers nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentProfiles } from '../../src/agents/profiles.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { UserInputView } from '../../src/user-input/index.js';
import type { Driver } from '../../src/store/index.js';
import { USER_INPUT_DECISION_TYPE, type ConsentRuleView } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, serverConfig, type ApiCall } from '../support/in-process-server.js';
import { writeShellPermissionAgent } from './shell-permission-agent.js';

const TOKEN = 'consent-rule-scope-admin-token-0123';

/** Makes every rule fail to be written, as a full disk or a failing store would. */
async function refuseRules(server: RunningServer, driver: Driver): Promise<void> {
  const db = server.store.db;
  if (driver === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER refuse_rules BEFORE INSERT ON consent_rules
         BEGIN SELECT RAISE(ABORT, 'no room for rules'); END`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION refuse_rules() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'no room for rules'; END $$`,
    )
    .execute(db);
  await sql
    .raw(
      'CREATE TRIGGER refuse_rules BEFORE INSERT ON consent_rules ' +
        'FOR EACH ROW EXECUTE FUNCTION refuse_rules()',
    )
    .execute(db);
}

async function allowRules(server: RunningServer, driver: Driver): Promise<void> {
  await sql
    .raw(
      driver === 'sqlite'
        ? 'DROP TRIGGER refuse_rules'
        : 'DROP TRIGGER refuse_rules ON consent_rules',
    )
    .execute(server.store.db);
}

describe.each(DRIVERS)('what an "Always allow" covers on %s', (driver) => {
  let dir: string;
  let agentPath: string;
  let database: TestDatabase;
  let server: RunningServer;
  let api: ApiCall;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'clarion-rule-scope-'));
    agentPath = writeShellPermissionAgent(dir);
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await server.close();
    await database.dispose();
  });

  /** Serves `database`; `profileCwd`: the folder the shell profile's agents run in. */
  async function listen(profileCwd?: string): Promise<void> {
    const agentProfiles = loadAgentProfiles({
      CLARION_AGENT_PROFILES: JSON.stringify({
        shell: { command: process.execPath, args: [agentPath], cwd: profileCwd },
      }),
    });
    server = await startServer(serverConfig(database, TOKEN, { agentProfiles }), silentLogger);
    api = bearerApi(server.url, TOKEN);
  }

  async function serve(profileCwd?: string): Promise<void> {
    database = await freshDatabase(driver, { migrated: true });
    await listen(profileCwd);
  }

  async function run(
    command: string,
    where: { workspace_id?: string; cwd?: string } = {},
  ): Promise<string> {
    const created = await api<{ session: { id: string } }>('POST', '/api/v1/tasks', {
      title: command,
      agent_profile: 'shell',
      prompt: command,
      ...where,
    });
    expect(created.status).toBe(201);
    return created.json.session.id;
  }

  async function agentText(sessionId: string): Promise<string> {
    const page = await api<{ messages: { author: string; type: string; content: string }[] }>(
      'GET',
      `/api/v1/sessions/${sessionId}/messages?limit=500`,
    );
    return page.json.messages
      .filter((message) => message.author === 'agent' && message.type === 'message')
      .map((message) => message.content)
      .join('\n');
  }

  /** The consent the session's agent is waiting on. */
  async function consentOf(sessionId: string): Promise<UserInputView> {
    let found: UserInputView | undefined;
    await eventually(async () => {
      const list = await api<{ requests: UserInputView[] }>('GET', '/api/v1/user-inputs');
      found = list.json.requests.find((request) => request.session_id === sessionId);
      return found !== undefined;
    }, 15_000);
    if (!found) throw new Error('no consent request');
    return found;
  }

  async function awaitsAPerson(
    command: string,
    where: { workspace_id?: string; cwd?: string } = {},
  ): Promise<void> {
    const sessionId = await run(command, where);
    const request = await consentOf(sessionId);
    expect(request).toMatchObject({ kind: 'consent', status: 'awaiting', title: command });
    expect(await agentText(sessionId)).not.toContain('RESULT');
  }

  const rulesOf = async () =>
    (await api<{ rules: ConsentRuleView[] }>('GET', '/api/v1/consent-rules')).json.rules;

  it('allows again only the command the person saw; another of the same kind asks', async () => {
    await serve();
    const first = await run('echo dupes');
    const request = await consentOf(first);
    const chosen = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-always',
    });
    expect(chosen.status).toBe(200);
    await eventually(async () => (await agentText(first)).includes('allow-always'), 15_000);
    await awaitsAPerson('echo 1');
    // The rule is for the whole command: one that starts alike is another command.
    await awaitsAPerson('echo dupes && rm -rf ./build');

    // No person answers this one: only the rule can.
    const again = await run('echo dupes');
    // Allowed once: the agent keeps no "always" of its own that a revoke could not reach.
    await eventually(async () => (await agentText(again)).includes('allow-once'), 15_000);
    expect(await rulesOf()).toMatchObject([
      { agent_profile: 'shell', tool_key: 'execute', command: 'echo dupes' },
    ]);
  });

  it('an "Always allow" whose rule cannot be kept is refused whole: no decision names a rule that is not there', async () => {
    await serve();
    await refuseRules(server, driver);
    const first = await run('echo kept-together');
    const request = await consentOf(first);
    const chosen = await api<{ code: string }>(
      'POST',
      `/api/v1/user-inputs/${request.id}/respond`,
      { option_id: 'allow-always' },
    );
    // Not recorded: the agent hears nothing, the person may answer again.
    expect(chosen.status).toBe(503);
    expect(await rulesOf()).toEqual([]);
    const rows = await api<{ messages: { type: string; metadata: { superseded?: boolean } }[] }>(
      'GET',
      `/api/v1/sessions/${first}/messages?limit=500`,
    );
    const decisions = rows.json.messages.filter(
      (row) => row.type === USER_INPUT_DECISION_TYPE && row.metadata.superseded !== true,
    );
    expect(decisions).toEqual([]);
    expect(await agentText(first)).not.toContain('RESULT');
    expect((await consentOf(first)).status).toBe('awaiting');

    await allowRules(server, driver);
    const again = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-always',
    });
    expect(again.status).toBe(200);
    expect(await rulesOf()).toMatchObject([{ command: 'echo kept-together' }]);
    await eventually(async () => (await agentText(first)).includes('allow-always'), 15_000);
  });

  it('allows the command only in the workspace and folder it was allowed in', async () => {
    await serve();
    const workspaces = await api<{ workspaces: { id: string; name: string }[] }>(
      'GET',
      '/api/v1/workspaces',
    );
    const home = workspaces.json.workspaces[0];
    const other = await api<{ workspace: { id: string } }>('POST', '/api/v1/workspaces', {
      name: 'Side project',
    });
    expect(other.status).toBe(201);
    const folder = mkdtempSync(join(dir, 'checkout-'));

    const first = await run('echo scoped', { cwd: folder });
    const request = await consentOf(first);
    const chosen = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, {
      option_id: 'allow-always',
    });
    expect(chosen.status).toBe(200);
    await eventually(async () => (await agentText(first)).includes('allow-always'), 15_000);
    expect(await rulesOf()).toMatchObject([
      {
        command: 'echo scoped',
        scope: { workspace_id: home?.id, workspace_name: home?.name, cwd: folder },
      },
    ]);
    expect((await rulesOf())[0]?.scope?.cwd).toBe(folder);

    // The same person, profile and command elsewhere: another workspace, another folder.
    await awaitsAPerson('echo scoped', { workspace_id: other.json.workspace.id, cwd: folder });
    await awaitsAPerson('echo scoped');
    await awaitsAPerson('echo scoped', { cwd: dir });

    // Where it was allowed, the rule answers (no person answers this one).
    const again = await run('echo scoped', { cwd: folder });
    await eventually(async () => (await agentText(again)).includes('allow-once'), 15_000);

    // An "always" in the other workspace is a rule of its own, beside the first.
    const there = await run('echo scoped', { workspace_id: other.json.workspace.id });
    const asked = await consentOf(there);
    expect(
      (await api('POST', `/api/v1/user-inputs/${asked.id}/respond`, { option_id: 'allow-always' }))
        .status,
    ).toBe(200);
    await eventually(async () => (await rulesOf()).length === 2, 15_000);
    // A task without a folder of its own runs in Clarion's: the rule names that folder.
    expect((await rulesOf()).map((rule) => rule.scope)).toEqual([
      { workspace_id: other.json.workspace.id, workspace_name: 'Side project', cwd: process.cwd() },
      { workspace_id: home?.id, workspace_name: home?.name, cwd: folder },
    ]);
  });

  it('holds in the folder the agent ran in: once its profile runs elsewhere, a person is asked', async () => {
    const before = mkdtempSync(join(dir, 'repo-a-'));
    const after = mkdtempSync(join(dir, 'repo-b-'));
    await serve(before);
    const first = await run('echo moved');
    const request = await consentOf(first);
    await api('POST', `/api/v1/user-inputs/${request.id}/respond`, { option_id: 'allow-always' });
    await eventually(async () => (await rulesOf()).length === 1, 15_000);
    expect((await rulesOf())[0]?.scope?.cwd).toBe(before);

    // The same profile, now set to work in another checkout.
    await server.close();
    await listen(after);
    await awaitsAPerson('echo moved');
  });

  it('a rule kept before rules were scoped answers nothing, and is listed without a scope', async () => {
    await serve();
    const first = await run('echo legacy');
    const request = await consentOf(first);
    await api('POST', `/api/v1/user-inputs/${request.id}/respond`, { option_id: 'allow-always' });
    await eventually(async () => (await rulesOf()).length === 1, 15_000);
    // As a rule kept before scopes were: its scope forgotten, its key the unscoped one.
    await server.store.db
      .updateTable('consent_rules')
      .set({
        workspace_id: null,
        cwd: null,
        tool_key: `v2:${createHash('sha256')
          .update(JSON.stringify(['execute', 'echo legacy']))
          .digest('hex')}`,
      })
      .execute();
    expect(await rulesOf()).toMatchObject([{ command: 'echo legacy', scope: null }]);
    await awaitsAPerson('echo legacy');
  });

  it('a rule kept under a bare kind answers nothing, and is listed without a command', async () => {
    await serve();
    const me = await api<{ user: { id: string } }>('GET', '/api/v1/me');
    await server.store.db
      .insertInto('consent_rules')
      .values({
        id: 'legacy-rule',
        user_id: me.json.user.id,
        agent_profile: 'shell',
        tool_key: 'execute',
        surface: 'web',
        created_at: '2026-12-01T00:00:00.000Z',
        updated_at: '2026-12-01T00:00:00.000Z',
      })
      .execute();
    expect(await rulesOf()).toMatchObject([
      { id: 'legacy-rule', tool_key: 'execute', command: null },
    ]);
    await awaitsAPerson('echo 1');
  });
});
