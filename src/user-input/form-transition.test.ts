/**
 * The `form` kind in the registry's pure rules: a person's accept (checked
 * against the schema) or decline settles it at once and answers the agent;
 * deadline, abort, delete and turn ends settle it as for a consent, except a
 * form asked outside any turn, which no turn end sweeps.
 */
import { describe, expect, it } from 'vitest';
import { formSchema } from '../wire/index.js';
import { transition } from './transition.js';
import {
  FORM_DEADLINE_MS,
  type AwaitingState,
  type FormRequest,
  type Responder,
  type TransitionResult,
  type UserInputEvent,
} from './types.js';

const T0 = 1_767_225_600_000;
const ADA: Responder = { user_id: 'user-1', name: 'Ada', surface: 'web' };

const form: FormRequest = {
  id: 'req-3',
  kind: 'form',
  sessionId: 'session-1',
  taskId: 'task-1',
  createdAtMs: T0,
  deadlineAtMs: T0 + FORM_DEADLINE_MS,
  title: 'Deploy settings',
  message: 'Where should this go?',
  schema: formSchema.parse({
    properties: { env: { type: 'string', enum: ['dev', 'prod'] }, replicas: { type: 'integer' } },
    required: ['env'],
  }),
  turnId: 'turn-1',
};
const awaiting: AwaitingState = {
  status: 'awaiting',
  request: form,
  revision: 1,
  turnEnded: false,
};
const sessionScoped: AwaitingState = { ...awaiting, request: { ...form, turnId: null } };

function applied(result: TransitionResult) {
  if ('ignored' in result) throw new Error(`ignored: ${result.ignored}`);
  return result;
}

describe('the form kind', () => {
  it('starts its own deadline when requested', () => {
    const result = applied(
      transition({ status: 'absent' }, { type: 'requested', request: form, rememberedBy: null }),
    );
    expect(result.state).toEqual(awaiting);
    expect(result.commands).toEqual([
      { type: 'startDeadline', afterMs: FORM_DEADLINE_MS },
      { type: 'publishChanged', revision: 1 },
    ]);
  });

  it('settles on accepted content and hands the agent exactly that content', () => {
    const content = { env: 'prod', replicas: 2 };
    const result = applied(
      transition(awaiting, {
        type: 'humanResponded',
        response: { decision: 'accept', content },
        responder: ADA,
      }),
    );
    expect(result.state).toMatchObject({
      status: 'settled',
      reason: 'human',
      revision: 2,
      answer: { kind: 'form', response: { decision: 'accept', content }, respondedBy: ADA },
    });
    expect(result.commands).toEqual([
      { type: 'cancelDeadline' },
      { type: 'publishChanged', revision: 2 },
      { type: 'answerAgent', outcome: { kind: 'submitted', content } },
    ]);
  });

  it('settles on a decline and tells the agent it was declined', () => {
    const result = applied(
      transition(awaiting, {
        type: 'humanResponded',
        response: { decision: 'decline' },
        responder: ADA,
      }),
    );
    expect(result.state).toMatchObject({ status: 'settled', reason: 'human' });
    expect(result.commands.at(-1)).toEqual({ type: 'answerAgent', outcome: { kind: 'declined' } });
  });

  it.each([
    [
      'content its schema refuses',
      { decision: 'accept', content: { env: 'staging' } },
      'invalid_content',
    ],
    ['content without a required field', { decision: 'accept', content: {} }, 'invalid_content'],
    ['an action decision', { decision: 'done' }, 'response_kind_mismatch'],
    ['a consent option', { option_id: 'allow' }, 'response_kind_mismatch'],
  ] as const)('ignores %s, changing nothing', (_, response, reason) => {
    const event = { type: 'humanResponded', response, responder: ADA } as UserInputEvent;
    expect(transition(awaiting, event)).toEqual({ ignored: reason });
  });

  it.each([
    [{ type: 'deadlinePassed' }, 'timed_out', 'timed_out'],
    [{ type: 'agentCallAborted' }, 'swept', 'swept'],
    [{ type: 'sessionDeleted', cause: 'session_deleted' }, 'swept', 'swept'],
    [{ type: 'turnEnded', outcome: 'normal' }, 'swept', 'swept'],
    [{ type: 'turnEnded', outcome: 'cancelled' }, 'swept', 'swept'],
    [{ type: 'superseded' }, 'superseded', 'superseded'],
  ] as const)('settles on %j and refuses the agent', (event, reason, refusal) => {
    const result = applied(transition(awaiting, event));
    expect(result.state).toMatchObject({ status: 'settled', reason, answer: null });
    expect(result.commands).toContainEqual({
      type: 'answerAgent',
      outcome: { kind: 'refused', reason: refusal },
    });
  });

  it.each(['normal', 'cancelled', 'failed'] as const)(
    'keeps a form asked outside any turn waiting when a turn ends (%s)',
    (outcome) => {
      expect(transition(sessionScoped, { type: 'turnEnded', outcome })).toEqual({
        ignored: 'not_turn_scoped',
      });
    },
  );

  it('is not named by an agent’s exit when asked outside any turn: no turn end ends it', () => {
    expect(transition(sessionScoped, { type: 'agentExitNamed' })).toEqual({
      ignored: 'not_turn_scoped',
    });
    const named = applied(transition(awaiting, { type: 'agentExitNamed' }));
    expect(named).toEqual({ state: { ...awaiting, ending: 'agent_exited' }, commands: [] });
  });

  it('answers once: a second answer, a deadline or an abort after it is ignored', () => {
    const settled = applied(
      transition(awaiting, {
        type: 'humanResponded',
        response: { decision: 'decline' },
        responder: ADA,
      }),
    ).state;
    const later: UserInputEvent[] = [
      { type: 'humanResponded', response: { decision: 'decline' }, responder: ADA },
      { type: 'deadlinePassed' },
      { type: 'agentCallAborted' },
    ];
    for (const event of later) {
      expect(transition(settled, event)).toEqual({ ignored: 'already_settled' });
    }
  });
});
