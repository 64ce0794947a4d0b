/**
 * Compatibility with the pinned real Gemini CLI (`@google/gemini-cli`
 * 0.61.0, `gemini --acp`) through the built server, offline: its model is a
 * local Gemini API stand-in. It answers a prompt, and a delete leaves no
 * process of its group. It asks for a person's approval before it runs a
 * shell command: the request reaches Clarion's inbox with the CLI's own
 * options, the person's Allow runs the command and Reject keeps it from
 * running, each recorded as theirs. Without a key the session fails with the
 * CLI's words.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import {
  functionResponse,
  startGeminiApiStandIn,
  type GeminiApiStandIn,
  type GeminiScript,
} from '../support/gemini-api-stand-in.js';
import { AGENT_WAIT_MS, useCompatWorld } from './compat-world.js';
import { GEMINI_KEY_VARIABLE, geminiProfile } from './gemini-profile.js';

describe('the Gemini CLI through Clarion', () => {
  const world = useCompatWorld<GeminiScript, GeminiApiStandIn>({
    name: 'gemini',
    adminToken: 'gemini-compat-admin-token-0123456789',
    keyVariable: GEMINI_KEY_VARIABLE,
    profile: geminiProfile,
    startStandIn: startGeminiApiStandIn,
  });

  it('answers a prompt, and a delete leaves no process of its group', async () => {
    const clarion = await world.serve(() => [{ text: 'Hello from the stand-in.' }]);
    const { sessionId } = await clarion.startTask('Say hello.');
    await eventually(
      () => clarion.transcriptHas(sessionId, 'Hello from the stand-in.'),
      AGENT_WAIT_MS,
    );
    expect(JSON.stringify(clarion.standIn?.requests.at(-1)?.contents.at(-1))).toContain(
      'Say hello.',
    );
    await clarion.expectDeleteLeavesNothing(sessionId);
  }, 120_000);

  it.each([
    { choice: 'allow_once', runs: true },
    { choice: 'reject_once', runs: false },
  ])(
    'asks the person before it runs a shell command; $choice decides whether it runs',
    async ({ choice, runs }) => {
      const proof = join(tmpdir(), `clarion-gemini-proof-${process.pid}-${choice}.txt`);
      rmSync(proof, { force: true });
      const clarion = await world.serve((request) => {
        if (functionResponse(request, 'run_shell_command') === undefined) {
          return [
            {
              functionCall: {
                name: 'run_shell_command',
                args: { command: `echo approved > ${proof}`, description: 'Write the proof file' },
              },
            },
          ];
        }
        return [{ text: 'The command ended.' }];
      });
      const { taskId, sessionId } = await clarion.startTask('Write the proof file.');

      const consent = await clarion.consentOf(sessionId);
      expect(consent.title).toContain(`echo approved > ${proof}`);
      // The CLI's own options, each read by what it does.
      expect(consent.options.map((option) => option.kind).sort()).toEqual([
        'allow_always',
        'allow_once',
        'reject_once',
      ]);
      expect(existsSync(proof)).toBe(false);

      await clarion.choose(consent, choice);
      if (runs) {
        await eventually(
          () => clarion.transcriptHas(sessionId, 'The command ended.'),
          AGENT_WAIT_MS,
        );
        expect(readFileSync(proof, 'utf8')).toBe('approved\n');
        rmSync(proof, { force: true });
      } else {
        // A rejected call ends the CLI's turn: the session is idle again, the file never written.
        await eventually(
          async () => (await clarion.sessionOf(taskId)).state === 'idle',
          AGENT_WAIT_MS,
        );
        expect(existsSync(proof)).toBe(false);
      }
      await clarion.expectDecidedByAdmin();
    },
    120_000,
  );

  it('without a key fails the session with the CLI’s words; the next message is 409 session_failed', async () => {
    const clarion = await world.serve(undefined);
    const task = await clarion.startTask('Say hello.');
    await clarion.expectStartFailed(task, ['Gemini API key is missing']);
  }, 120_000);
});
