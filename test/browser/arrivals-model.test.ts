/**
 * What the arrivals live region tells, in Node: news is judged by what the
 * page has read (each list's first applied read), never by timestamps, so an
 * old item is never told and a new one is told once, whatever the clocks.
 */
import { describe, expect, it } from 'vitest';
import { arrivals, type FirstReads } from '../../web/src/model/arrivals.js';
import { initialState, transitions } from '../../web/src/model/read-model.js';
import type { TriageItem } from '../../web/src/model/triage.js';
import type { ConsentView, PendingBundle } from '../../web/src/model/types.js';
import { initialUserInputs, userInputTransitions as ui } from '../../web/src/model/user-inputs.js';

function item(key: string, source: TriageItem['source'], extra: Partial<TriageItem> = {}) {
  return {
    key,
    kind: source === 'bundle' ? 'question' : 'permission',
    session_id: `s-${key}`,
    task_id: `t-${key}`,
    task_title: `Task ${key}`,
    agent: 'demo',
    owner: null,
    // Far in the past and far in the future: the judgement must not read them.
    created_at: key.startsWith('new') ? '1999-01-01T00:00:00.000Z' : '2999-01-01T00:00:00.000Z',
    deadline_at: null,
    source,
    ...(source === 'bundle' ? { bundle: undefined as never } : { entry: undefined as never }),
    ...extra,
  } as TriageItem;
}

const keys = (items: TriageItem[]) => items.map((entry) => entry.key);

describe('arrivals', () => {
  const read: FirstReads = { bundles: { 'old-q': true }, requests: { 'old-r': true } };

  it('tells what the first reads did not name, whatever its timestamp, and never what they did', () => {
    const items = [item('old-q', 'bundle'), item('new-q', 'bundle'), item('old-r', 'user_input')];
    expect(keys(arrivals(items, read, new Set()))).toEqual(['new-q']);
    items.push(item('new-r', 'user_input'));
    expect(keys(arrivals(items, read, new Set(['new-q'])))).toEqual(['new-r']);
  });

  it('tells nothing of a list before its first read, and waits for a task’s title', () => {
    const items = [item('new-q', 'bundle'), item('new-r', 'user_input')];
    expect(keys(arrivals(items, { bundles: undefined, requests: {} }, new Set()))).toEqual([
      'new-r',
    ]);
    expect(keys(arrivals([item('new-q', 'bundle', { task_title: '' })], read, new Set()))).toEqual(
      [],
    );
  });
});

const bundle = (id: string): PendingBundle => ({
  pending_id: id,
  task_id: 'task-1',
  session_id: 'session-1',
  turn_id: 'turn-1',
  created_at: '2026-01-01T00:00:01.000000000Z',
  context: '',
  detached: false,
  questions: [],
});

const request = (id: string): ConsentView => ({
  id,
  kind: 'consent',
  session_id: 'session-1',
  task_id: 'task-1',
  status: 'awaiting',
  revision: 1,
  created_at: '2026-01-01T00:00:01.000Z',
  deadline_at: '2026-01-01T00:05:01.000Z',
  settled_reason: null,
  responded_by: null,
  title: 'Delete the build cache',
  tool_key: 'delete',
  details: [],
  options: [],
  selected_option_id: null,
  remembered: false,
  reason: null,
});

describe('each model keeps what its first applied read named', () => {
  it('the pending list: a stale read does not count, a later one changes nothing', () => {
    let state = transitions.subscribed(initialState());
    expect(state.firstRead).toBeUndefined();
    // Requested under an earlier subscription: dropped, so not the first read either.
    state = transitions.pendingSnapshot(state, [bundle('stale')], state.generation - 1);
    expect(state.firstRead).toBeUndefined();
    state = transitions.pendingSnapshot(state, [bundle('p-1')], state.generation);
    expect(state.firstRead).toEqual({ 'p-1': true });
    state = transitions.subscribed(state);
    state = transitions.pendingSnapshot(state, [bundle('p-1'), bundle('p-2')], state.generation);
    expect(state.firstRead).toEqual({ 'p-1': true });
  });

  it('the user-input list: a stale read does not count, a later one changes nothing', () => {
    let state = ui.subscribed(initialUserInputs());
    expect(state.firstRead).toBeUndefined();
    state = ui.snapshot(state, [request('stale')], state.generation - 1);
    expect(state.firstRead).toBeUndefined();
    state = ui.snapshot(state, [request('r-1')], state.generation);
    expect(state.firstRead).toEqual({ 'r-1': true });
    state = ui.view(state, request('r-2'));
    state = ui.snapshot(state, [request('r-1'), request('r-2')], state.generation);
    expect(state.firstRead).toEqual({ 'r-1': true });
  });
});
