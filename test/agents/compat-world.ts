/**
 * The world a compatibility suite runs a real agent in: the built server
 * (`clarion serve`) on a fresh SQLite database, one agent profile in a home
 * of its own, and a local stand-in for the agent's model API, all torn down
 * after each test. The suites differ in the agent and its model; what they
 * check of Clarion (a prompt answered, a permission request decided by a
 * person, a start refused for want of a key, a delete that leaves no
 * process) reads the same here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import { startServing, type Serving } from '../support/clarion-process.js';
import { freshDatabase, type TestDatabase } from '../support/databases.js';
import { childrenOf, clarionApi, groupGone } from './supervisor-support.js';

/** The agent's start and a turn on a loaded machine. */
export const AGENT_WAIT_MS = 60_000;
/** Stop grace plus kill wait, with room for a loaded machine. */
export const TEARDOWN_BOUND_MS = 15_000;

export interface StandIn {
  readonly url: string;
  close(): Promise<void>;
}

export interface CompatAgent<Script, Served extends StandIn> {
  /** The profile's name. */
  readonly name: string;
  readonly adminToken: string;
  /** The variable the profile passes the key in (`pass_env`); none when the profile carries it. */
  readonly keyVariable?: string;
  /** The profile, its home in `home`, its model at `modelUrl` or left to reach its vendor. */
  profile(home: string, modelUrl: string | undefined): Record<string, unknown>;
  startStandIn(script: Script): Promise<Served>;
}

export interface ConsentView {
  id: string;
  kind: string;
  session_id: string;
  title: string;
  options: { option_id: string; label: string; kind: string }[];
}

/** Registers the teardown; `serve` starts a world, with a key and stand-in when given a script. */
export function useCompatWorld<Script, Served extends StandIn>(agent: CompatAgent<Script, Served>) {
  let standIn: Served | undefined;
  let database: TestDatabase | undefined;
  let server: Serving | undefined;
  let home: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await standIn?.close();
    standIn = undefined;
    await database?.dispose();
    if (home) rmSync(home, { recursive: true, force: true });
    home = undefined;
  });

  async function serve(script: Script | undefined) {
    home = mkdtempSync(join(tmpdir(), `clarion-${agent.name}-home-`));
    standIn = script === undefined ? undefined : await agent.startStandIn(script);
    database = await freshDatabase('sqlite');
    if (database.target.driver !== 'sqlite') throw new Error('sqlite expected');
    server = await startServing({
      CLARION_DATA_DIR: database.target.dataDir,
      CLARION_ADMIN_TOKEN: agent.adminToken,
      CLARION_AGENT_PROFILES: JSON.stringify({ [agent.name]: agent.profile(home, standIn?.url) }),
      ...(standIn === undefined || agent.keyVariable === undefined
        ? {}
        : { [agent.keyVariable]: 'stand-in-not-a-key' }),
    });
    return served(agent, server, home, standIn);
  }

  return { serve };
}

function served<Served extends StandIn>(
  agent: CompatAgent<unknown, Served>,
  server: Serving,
  home: string,
  standIn: Served | undefined,
) {
  const api = clarionApi(server.url, agent.adminToken);
  const serverPid = server.child.pid ?? 0;

  const startTask = async (prompt: string) => {
    const created = await api('POST', '/api/v1/tasks', {
      title: agent.name,
      agent_profile: agent.name,
      prompt,
      cwd: home,
    });
    expect(created.status).toBe(201);
    return {
      taskId: (created.json.task as { id: string }).id,
      sessionId: (created.json.session as { id: string }).id,
      admission: created.json.admission as string,
    };
  };

  const transcriptHas = async (sessionId: string, text: string) => {
    const page = await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
    return (page.json.messages as { content: string }[]).some((message) =>
      message.content.includes(text),
    );
  };

  const sessionOf = async (taskId: string) => {
    const list = await api('GET', `/api/v1/tasks/${taskId}/sessions`);
    return (list.json.sessions as Record<string, unknown>[])[0] ?? {};
  };

  /** The session's permission request, once the agent asked it. */
  const consentOf = async (sessionId: string): Promise<ConsentView> => {
    let consent: ConsentView | undefined;
    await eventually(async () => {
      const list = await api('GET', '/api/v1/user-inputs');
      consent = (list.json.requests as ConsentView[]).find(
        (request) => request.session_id === sessionId && request.kind === 'consent',
      );
      return consent !== undefined;
    }, AGENT_WAIT_MS);
    if (!consent) throw new Error('no consent');
    return consent;
  };

  /** Picks the consent's option of `kind` as the admin, over REST. */
  const choose = async (consent: ConsentView, kind: string) => {
    const option = consent.options.find((candidate) => candidate.kind === kind);
    const answered = await api('POST', `/api/v1/user-inputs/${consent.id}/respond`, {
      option_id: option?.option_id,
    });
    expect(answered.status).toBe(200);
  };

  /** The decision log holds the one consent, made by the admin over REST. */
  const expectDecidedByAdmin = async () => {
    const log = await api('GET', '/api/v1/decisions');
    expect(log.json.decisions).toEqual([
      expect.objectContaining({
        kind: 'consent',
        responded_by: expect.objectContaining({ name: 'admin', surface: 'rest' }) as unknown,
      }),
    ]);
  };

  /** Deletes the session, bounded, and nothing of the agent's process group is left. */
  const expectDeleteLeavesNothing = async (sessionId: string) => {
    const agents = childrenOf(serverPid);
    expect(agents.length).toBe(1);
    const started = Date.now();
    const deleted = await api('DELETE', `/api/v1/sessions/${sessionId}`);
    expect(deleted.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(TEARDOWN_BOUND_MS);
    // The agent led its own group; whatever it started goes with it.
    await eventually(() => groupGone(agents[0] ?? 0), TEARDOWN_BOUND_MS);
  };

  /** A start refused for want of a key fails the session saying `words`; the next message is 409. */
  const expectStartFailed = async (
    ids: { taskId: string; sessionId: string },
    words: readonly string[],
  ) => {
    let session: Record<string, unknown> = {};
    await eventually(async () => {
      session = await sessionOf(ids.taskId);
      return session.state === 'failed';
    }, AGENT_WAIT_MS);
    const failure = session.failure as { code: string; message: string };
    expect(failure.code).toBe('start_failed');
    for (const said of words) expect(failure.message).toContain(said);
    const next = await api('POST', `/api/v1/sessions/${ids.sessionId}/messages`, {
      text: 'again',
      admission_key: `${agent.name}-again`,
    });
    expect(next.status).toBe(409);
    expect(next.json.code).toBe('session_failed');
    await eventually(() => childrenOf(serverPid).length === 0, TEARDOWN_BOUND_MS);
  };

  return {
    api,
    standIn,
    startTask,
    transcriptHas,
    sessionOf,
    consentOf,
    choose,
    expectDecidedByAdmin,
    expectDeleteLeavesNothing,
    expectStartFailed,
  };
}
