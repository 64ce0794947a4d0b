/**
 * Issue 15: an "Always allow" survives a restart of `clarion serve`. Before,
 * the registry kept it in memory and the next start asked again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseTarget, Driver } from '../../src/store/index.js';
import type { UserInputView } from '../../src/user-input/index.js';
import type { ConsentRuleView } from '../../src/wire/index.js';
import { eventually } from '../support/clarification-harness.js';
import { databaseEnv, startServing, type Serving } from '../support/clarion-process.js';
import { DRIVERS, freshDatabase, type TestDatabase } from '../support/databases.js';
import { bearerApi, type ApiCall } from '../support/in-process-server.js';

const TOKEN = 'consent-restart-admin-token-0123';

function envFor(target: DatabaseTarget): Record<string, string> {
  return { ...databaseEnv(target), CLARION_ADMIN_TOKEN: TOKEN };
}

async function permissionTask(api: ApiCall): Promise<string> {
  const created = await api<{ session: { id: string } }>('POST', '/api/v1/tasks', {
    title: 'Permission',
    prompt: '/permission',
  });
  expect(created.status).toBe(201);
  return created.json.session.id;
}

async function agentText(api: ApiCall, sessionId: string): Promise<string> {
  const page = await api<{ messages: { author: string; type: string; content: string }[] }>(
    'GET',
    `/api/v1/sessions/${sessionId}/messages?limit=500`,
  );
  return page.json.messages
    .filter((message) => message.author === 'agent' && message.type === 'message')
    .map((message) => message.content)
    .join('\n');
}

describe.each(DRIVERS)('an "Always allow" across a restart on %s', (driver: Driver) => {
  let database: TestDatabase | undefined;
  let serving: Serving | undefined;

  afterEach(async () => {
    if (serving) await serving.stop();
    serving = undefined;
    await database?.dispose();
    database = undefined;
  });

  it('answers the next start’s consent without asking', async () => {
    database = await freshDatabase(driver, { migrated: true });
    serving = await startServing(envFor(database.target));
    const before = bearerApi(serving.url, TOKEN);
    const first = await permissionTask(before);
    let request: UserInputView | undefined;
    await eventually(async () => {
      const list = await before<{ requests: UserInputView[] }>('GET', '/api/v1/user-inputs');
      request = list.json.requests.find((item) => item.session_id === first);
      return request !== undefined;
    }, 20_000);
    const chosen = await before('POST', `/api/v1/user-inputs/${request?.id}/respond`, {
      option_id: 'allow-always',
    });
    expect(chosen.status).toBe(200);
    await eventually(async () => {
      const rules = await before<{ rules: ConsentRuleView[] }>('GET', '/api/v1/consent-rules');
      return rules.json.rules.length === 1;
    }, 20_000);
    await serving.stop();

    serving = await startServing(envFor(database.target));
    const after = bearerApi(serving.url, TOKEN);
    const rules = await after<{ rules: ConsentRuleView[] }>('GET', '/api/v1/consent-rules');
    expect(rules.json.rules).toMatchObject([{ agent_profile: 'demo', surface: 'rest' }]);
    const second = await permissionTask(after);
    await eventually(
      async () => (await agentText(after, second)).includes('Permission answer'),
      20_000,
    );
    expect(await agentText(after, second)).toContain('allow-once');
    const waiting = await after<{ requests: UserInputView[] }>('GET', '/api/v1/user-inputs');
    expect(waiting.json.requests).toEqual([]);
  });
});
