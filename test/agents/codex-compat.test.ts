/**
 * Compatibility with the pinned real Codex ACP adapter
 * (`@zed-industries/codex-acp` 0.16.0, its npm launcher and native binary)
 * through the built server, offline: its model is a local Responses API
 * stand-in. Codex refuses `session/new` until the client authenticates,
 * even with its key set, so Clarion authenticates with the method the
 * profile's environment holds; without a key the session fails saying
 * which variables Codex reads. Codex asks for a person's approval before a
 * command leaves its sandbox: the request reaches Clarion's inbox with
 * Codex's own options, the person's Allow runs the command and Reject keeps
 * it from running, each recorded as theirs. A delete leaves no process of
 * the agent's group.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/clarification-harness.js';
import {
  functionCallOutput,
  startResponsesApiStandIn,
  type ResponsesApiStandIn,
  type ResponsesScript,
} from '../support/responses-api-stand-in.js';
import { CODEX_KEY_VARIABLE, codexProfile } from './codex-profile.js';
import { AGENT_WAIT_MS, useCompatWorld } from './compat-world.js';

describe('the Codex ACP adapter through Clarion', () => {
  const world = useCompatWorld<ResponsesScript, ResponsesApiStandIn>({
    name: 'codex',
    adminToken: 'codex-compat-admin-token-0123456789',
    keyVariable: CODEX_KEY_VARIABLE,
    profile: codexProfile,
    startStandIn: startResponsesApiStandIn,
  });

  it('authenticates with the key its profile passes, answers a prompt, and a delete leaves no process of its group', async () => {
    const clarion = await world.serve(() => [
      { type: 'message', text: 'Hello from the stand-in.' },
    ]);
    const { sessionId } = await clarion.startTask('Say hello.');
    await eventually(
      () => clarion.transcriptHas(sessionId, 'Hello from the stand-in.'),
      AGENT_WAIT_MS,
    );
    expect(clarion.standIn?.requests.at(-1)?.input.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'input_text', text: 'Say hello.' }],
    });
    await clarion.expectDeleteLeavesNothing(sessionId);
  }, 120_000);

  it.each([
    { choice: 'allow_once', runs: true },
    { choice: 'reject_once', runs: false },
  ])(
    'asks the person before a command leaves its sandbox; $choice decides whether it runs',
    async ({ choice, runs }) => {
      const proof = join(tmpdir(), `clarion-codex-proof-${process.pid}-${choice}.txt`);
      rmSync(proof, { force: true });
      const clarion = await world.serve((request) => {
        const output = functionCallOutput(request, 'call_proof');
        if (output === undefined) {
          return [
            {
              type: 'function_call',
              callId: 'call_proof',
              name: 'exec_command',
              arguments: {
                cmd: `echo approved > ${proof}`,
                sandbox_permissions: 'require_escalated',
                justification: 'May I write the proof file?',
                tty: false,
              },
            },
          ];
        }
        return [{ type: 'message', text: `The command ended: ${output.split('\n')[0] ?? ''}` }];
      });
      const { sessionId } = await clarion.startTask('Write the proof file.');

      const consent = await clarion.consentOf(sessionId);
      expect(consent.title).toContain(`echo approved > ${proof}`);
      // Codex's own options, each read by what it does.
      expect(consent.options.map((option) => option.kind)).toEqual([
        'allow_once',
        'allow_always',
        'reject_once',
      ]);
      expect(existsSync(proof)).toBe(false);

      await clarion.choose(consent, choice);
      // Codex's reject ("tell Codex what to do differently") ends the turn: the model hears nothing.
      await eventually(
        () => clarion.transcriptHas(sessionId, runs ? 'The command ended: ' : 'Cancelled'),
        AGENT_WAIT_MS,
      );
      expect(clarion.standIn?.requests.length).toBe(runs ? 2 : 1);
      expect(existsSync(proof)).toBe(runs);
      if (runs) expect(readFileSync(proof, 'utf8')).toBe('approved\n');
      rmSync(proof, { force: true });
      await clarion.expectDecidedByAdmin();
    },
    120_000,
  );

  it('without a key fails the session saying which variables Codex reads; the next message is 409 session_failed', async () => {
    const clarion = await world.serve(undefined);
    const task = await clarion.startTask('Say hello.');
    await clarion.expectStartFailed(task, [
      'Authentication required',
      'CODEX_API_KEY or OPENAI_API_KEY',
    ]);
  }, 120_000);
});
