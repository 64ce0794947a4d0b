/**
 * Benchmark 4: the full cycle. Each agent is a real MCP client (Streamable
 * HTTP, its own agent token for its own session) calling
 * `ask_user_question`; the responder learns of the question from the event
 * stream and answers over REST; the cycle ends when the agent's tool call
 * returns the answer. Cycles per second count whole cycles over the wall
 * time of a level; each agent runs its cycles back to back.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { issueToken } from '../src/auth/tokens.js';
import { askArgs, type ClarionInstance } from './clarion-instance.js';
import { askQuestion, connectAgent } from './mcp-agent.js';
import { startResponder } from './responder.js';
import type { Contestant } from './cycle-level.js';

/** Connects `count` agents (one session and agent token each) and one responder. */
export async function connectAgents(instance: ClarionInstance, count: number): Promise<Contestant> {
  const sessions = await instance.seedSessions(count);
  const responder = await startResponder(instance.server.url);
  const clients: Client[] = [];
  let tag = 0;
  try {
    for (const sessionId of sessions) {
      const { secret } = await issueToken(instance.server.store, {
        kind: 'agent',
        userId: instance.adminUserId,
        sessionId,
      });
      clients.push(await connectAgent(instance.server.url, secret));
    }
  } catch (error) {
    responder.close();
    await Promise.allSettled(clients.map((client) => client.close()));
    throw error;
  }

  return {
    async cycle(agent) {
      const client = clients[agent];
      if (!client) throw new Error(`no agent ${String(agent)}`);
      const outcome = await askQuestion(client, askArgs(`cycle ${String(tag++)}`));
      return outcome.status === 'answered';
    },
    otherFailures: () => responder.failures(),
    async close() {
      responder.close();
      await Promise.allSettled(clients.map((client) => client.close()));
    },
  };
}
