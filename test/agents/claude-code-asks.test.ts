/**
 * The real Claude Code asks through Clarion, offline (issue 13, "Prove"):
 * the pinned ACP adapter (`@agentclientprotocol/claude-agent-acp` 0.101.0 and
 * its Claude Code CLI) runs as an agent profile of the built server, its
 * model API is a scripted local stand-in, its HOME a temporary folder. The
 * model calls the built-in `AskUserQuestion`; the question must reach the
 * inbox with its header, options and descriptions, the person's answer must
 * reach the tool, and the model's final words quote the tool's result.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import {
  startMessagesApiStandIn,
  type MessagesApiStandIn,
  type MessagesScript,
} from '../support/messages-api-stand-in.js';
import { askThenQuote, QUOTE_PREFIX } from './claude-ask-script.js';
import { claudeProfile } from './claude-profile.js';
import { AGENT_WAIT_MS, useCompatWorld } from './compat-world.js';

interface Bundle {
  pending_id: string;
  session_id: string;
  questions: {
    question_id: string;
    title: string;
    prompt: string;
    multi_select: boolean;
    options: { option_id: string; label: string; description: string }[];
  }[];
}

describe('the real Claude Code through Clarion, offline', () => {
  const world = useCompatWorld<MessagesScript, MessagesApiStandIn>({
    name: 'claude',
    adminToken: 'claude-code-asks-admin-token-0123456789',
    profile: claudeProfile,
    startStandIn: startMessagesApiStandIn,
  });

  it('asks AskUserQuestion in the inbox, and its final message quotes the chosen labels and custom text', async () => {
    const clarion = await world.serve(askThenQuote);
    const { api } = clarion;
    const { sessionId } = await clarion.startTask('Ask me which database to use.');

    let bundle: Bundle | undefined;
    await eventually(async () => {
      const list = await api('GET', '/api/v1/pending');
      bundle = (list.json.bundles as Bundle[]).find((found) => found.session_id === sessionId);
      return bundle !== undefined;
    }, AGENT_WAIT_MS);
    if (!bundle) throw new Error('no bundle');
    expect(bundle.questions).toEqual([
      expect.objectContaining({
        question_id: 'question_0',
        title: 'Database',
        prompt: 'Which database should the service use?',
        multi_select: false,
        options: [
          {
            option_id: 'question_0_opt_1',
            label: 'PostgreSQL',
            description: 'One server, strong SQL',
          },
          { option_id: 'question_0_opt_2', label: 'SQLite', description: 'Embedded, no server' },
        ],
      }),
      expect.objectContaining({
        question_id: 'question_1',
        title: 'Checks',
        multi_select: true,
        options: [
          expect.objectContaining({ label: 'Lint', description: 'eslint and prettier' }),
          expect.objectContaining({ label: 'Tests' }),
          expect.objectContaining({ label: 'Bench' }),
        ],
      }),
    ]);

    const answered = await api('POST', `/api/v1/clarification/${bundle.pending_id}/respond`, {
      answers: [
        { question_id: 'question_0', selected_options: ['question_0_opt_2'] },
        {
          question_id: 'question_1',
          selected_options: ['question_1_opt_2'],
          custom_text: 'types as well',
        },
      ],
    });
    expect(answered.status).toBe(200);

    let final = '';
    await eventually(async () => {
      const page = await api('GET', `/api/v1/sessions/${sessionId}/messages?limit=500`);
      final = (page.json.messages as { author: string; type: string; content: string }[])
        .filter((message) => message.author === 'agent' && message.type === 'message')
        .map((message) => message.content)
        .join('\n');
      return final.includes(QUOTE_PREFIX);
    }, AGENT_WAIT_MS);
    expect(final).toContain('"Which database should the service use?"="SQLite"');
    expect(final).toContain('Tests, types as well');
  }, 120_000);
});
