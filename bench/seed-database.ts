/**
 * Fills a database for `clarion serve` running as a child process: agent
 * sessions in the admin's workspace, each with its own agent token, and
 * optionally pending bundles whose agents are gone. The first call, before
 * the server starts, bootstraps the admin the server will find; later calls
 * add to a database the server is using, which is safe because it keeps no
 * cache of sessions or tokens (and SQLite runs in WAL with a busy timeout).
 *
 * The detached bundles are one real bundle, written and then detached by the
 * product's own service calls (what an ask whose agent went away leaves
 * behind), then cloned in SQL over holder sessions: thousands of asks would
 * cost the bench tens of seconds and say nothing more.
 */
import { sql } from 'kysely';
import { bootstrapAccounts } from '../src/auth/bootstrap.js';
import { issueToken } from '../src/auth/tokens.js';
import { normalizeAsk } from '../src/clarification/index.js';
import {
  createSession,
  createUser,
  createTask,
  firstAdmin,
  listMemberWorkspaces,
  openStore,
  startTurn,
  type DatabaseTarget,
  type Store,
} from '../src/store/index.js';
import { AGENTS_PER_USER } from '../src/tunables.js';
import { cloneBundle, createSessionSlots } from './bulk-data.js';
import { ADMIN_TOKEN, askArgs } from './clarion-instance.js';
import { clarificationEngine } from './engine-cycle.js';

export interface SeedPlan {
  /** Sessions with an agent token each, for MCP agents to ask in. */
  agents: number;
  /** Active bundles with no live waiter; only one call per database may add them. */
  detached: number;
  /** How many of them share one holder session. */
  detachedPerSession: number;
  seed: number;
}

export interface SeededAgent {
  sessionId: string;
  /** The agent token's secret, for `Authorization: Bearer` on `/mcp`. */
  secret: string;
}

const HOLDER_TABLE = 'bench_holders';

/**
 * Seeds `plan`; returns the agent sessions it made. Their tokens come from
 * `mintAgentTokens` once the server runs: a server's start revokes every agent
 * token an earlier process left (they would outlive their agents).
 */
export async function seedDatabase(target: DatabaseTarget, plan: SeedPlan): Promise<string[]> {
  const store = await openStore(target);
  try {
    const admin =
      (await firstAdmin(store)) ??
      (await bootstrapAccounts(store, { adminToken: ADMIN_TOKEN })).admin;
    const [workspace] = await listMemberWorkspaces(store, admin.id);
    if (!workspace) throw new Error('bootstrap made no admin workspace');
    const sessions: string[] = [];
    for (let index = 0; index < plan.agents; index++) {
      const task = await createTask(store, {
        workspaceId: workspace.id,
        title: `bench agent ${index}`,
        createdBy: admin.id,
      });
      const session = await createSession(store, { taskId: task.id, agentProfile: 'demo' });
      await startTurn(store, { sessionId: session.id, taskId: task.id });
      sessions.push(session.id);
    }
    if (plan.detached > 0) {
      const holders = Math.ceil(plan.detached / plan.detachedPerSession);
      await createSessionSlots(store, HOLDER_TABLE, workspace.id, holders);
      const templateId = await detachedTemplate(store);
      if (plan.detached > 1) {
        await cloneBundle(store, {
          templateId,
          table: HOLDER_TABLE,
          count: plan.detached - 1,
          seed: plan.seed,
        });
      }
    }
    return sessions;
  } finally {
    await store.close();
  }
}

/**
 * An agent token per seeded session; call it while the server runs. A user
 * never has more than `AGENTS_PER_USER` agents running, so the tokens are
 * spread over that many per bench user, as real agents would be (the
 * server's per-user MCP bound assumes it).
 */
export async function mintAgentTokens(
  target: DatabaseTarget,
  sessionIds: readonly string[],
): Promise<SeededAgent[]> {
  const store = await openStore(target);
  try {
    const agents: SeededAgent[] = [];
    let owner = '';
    for (const [index, sessionId] of sessionIds.entries()) {
      if (index % AGENTS_PER_USER === 0) {
        owner = (await createUser(store, { name: `bench owner ${String(index)}` })).id;
      }
      const { secret } = await issueToken(store, { kind: 'agent', userId: owner, sessionId });
      agents.push({ sessionId, secret });
    }
    return agents;
  } finally {
    await store.close();
  }
}

/** A real detached one-question bundle in the first holder session; returns its row ID. */
async function detachedTemplate(store: Store): Promise<string> {
  const service = clarificationEngine(store, { publish: () => {} });
  const holder = await sql<{
    session_id: string;
  }>`SELECT session_id FROM ${sql.table(HOLDER_TABLE)} WHERE slot = 0`.execute(store.db);
  const sessionId = holder.rows[0]?.session_id;
  if (!sessionId) throw new Error('no holder session');
  const ask = normalizeAsk(askArgs('detached'));
  if (!ask.ok) throw new Error('the bench question does not validate');
  if (!(await service.createBundle(sessionId, ask.value))) throw new Error('no template bundle');
  if ((await service.detachSession(sessionId)).length !== 1) throw new Error('nothing detached');
  const row = await store.db
    .selectFrom('task_session_messages')
    .select('id')
    .where('task_session_id', '=', sessionId)
    .executeTakeFirstOrThrow();
  return row.id;
}
