/**
 * An agent that dies while its request waits (issue: tester's defect 7), in
 * the built `clarion serve` on each driver with the real demo agent
 * SIGKILLed: the person's late answer is refused as `agent_exited` (409,
 * saying the agent stopped and the request ended unanswered), never as
 * settled by someone; the decision log stays empty; and the transcript names
 * the request once, as a `user_input_ended` note with loss `agent_exited`.
 * Its permission request comes over ACP; its action over MCP, whose
 * connection closes with the process, usually before its exit is seen.
 */
import { describe, expect, it } from 'vitest';
import { OUTCOMES, USER_INPUT_ENDED_TYPE } from '../../src/wire/index.js';
import { childrenOf } from './supervisor-support.js';
import { eventually } from '../support/clarification-harness.js';
import { useServedDatabase } from '../support/clarion-process.js';
import { DRIVERS } from '../support/databases.js';
import { bearerApi } from '../support/in-process-server.js';
import { waitingItems } from '../support/waiting-items.js';

const ADMIN_TOKEN = 'agent-exit-ends-requests-token-0123456789';
/** The built server starts the demo agent before it can ask. */
const AGENT_WAIT_MS = 30_000;

interface Message {
  author: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
}

/** What the demo agent asks, and a person's answer to it. */
const ASKS = [
  {
    what: 'permission request',
    prompt: '/permission',
    kind: 'consent',
    answer: { option_id: 'allow-once' },
  },
  {
    what: 'action asked over MCP',
    prompt: '/action',
    kind: 'action',
    answer: { decision: 'done' },
  },
] as const;

describe.each(DRIVERS)('an agent killed while its request waits (%s)', (driver) => {
  const served = useServedDatabase();

  it.each(ASKS)(
    'refuses the late answer to its $what as the agent’s exit and names the request in the transcript',
    async ({ prompt, kind, answer }) => {
      const database = await served.open(driver);
      const server = await database.serve({ CLARION_ADMIN_TOKEN: ADMIN_TOKEN });
      const api = bearerApi(server.url, ADMIN_TOKEN);
      const serverPid = server.child.pid ?? 0;
      const running = new Set(childrenOf(serverPid));

      const { sessionId, request } = await waitingItems(api, AGENT_WAIT_MS).requestOfTask(
        prompt,
        'kill me',
      );

      const agentPid = childrenOf(serverPid).find((pid) => !running.has(pid));
      expect(agentPid).toBeDefined();
      process.kill(agentPid ?? 0, 'SIGKILL');

      const transcript = async () =>
        (await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`)).json
          .messages as Message[];
      const notes = async () =>
        (await transcript()).filter((message) => message.type === USER_INPUT_ENDED_TYPE);
      await eventually(async () => (await notes()).length > 0, 30_000);

      const refused = await api('POST', `/api/v1/user-inputs/${request.id}/respond`, answer);
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({
        code: 'agent_exited',
        error: OUTCOMES.agent_exited.message,
      });
      expect(OUTCOMES.agent_exited.message).toContain('the agent that asked stopped');

      // Nobody decided: nothing in the decision log.
      const decisions = await api('GET', '/api/v1/decisions');
      expect(decisions.json.decisions).toEqual([]);

      const [note, ...more] = await notes();
      expect(more).toEqual([]);
      expect(note).toMatchObject({
        author: 'system',
        metadata: {
          request_id: request.id,
          kind,
          title: request.title,
          loss: 'agent_exited',
        },
      });
      expect(note?.content).toContain(`"${request.title}" ended unanswered: the agent stopped`);
      // The failure is still said as before, once.
      const failed = (await transcript()).filter((message) => message.type === 'error');
      expect(failed).toHaveLength(1);
      expect(failed[0]?.content).toContain('signal SIGKILL');
    },
    120_000,
  );
});
