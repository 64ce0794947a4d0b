import { describe, expect, it } from 'vitest';
import type { Timers } from '../../support/timers.js';
import { OutputCoalescer, type CoalescedOutput } from './output-coalescer.js';
import type { OutputPiece } from './session-updates.js';

function manualTimers() {
  const pending: { callback: () => void; ms: number; cancelled: boolean }[] = [];
  const timers: Timers = {
    setTimeout(callback, ms) {
      const entry = { callback, ms, cancelled: false };
      pending.push(entry);
      return {
        cancel: () => {
          entry.cancelled = true;
        },
      };
    },
  };
  const fireAll = () => {
    for (const entry of pending.splice(0)) if (!entry.cancelled) entry.callback();
  };
  return { timers, pending, fireAll };
}

const text = (content: string): OutputPiece => ({
  kind: 'text',
  content,
  metadata: {},
  coalesce: true,
});
const thought = (content: string): OutputPiece => ({
  kind: 'thought',
  content,
  metadata: {},
  coalesce: true,
});
const tool = (title: string): OutputPiece => ({
  kind: 'tool_call',
  content: title,
  metadata: { toolCallId: title },
  coalesce: false,
});

function setup() {
  const clock = manualTimers();
  const emitted: CoalescedOutput[] = [];
  const coalescer = new OutputCoalescer({
    timers: clock.timers,
    flushIntervalMs: 200,
    emit: (output) => emitted.push(output),
  });
  return { ...clock, emitted, coalescer };
}

describe('output coalescing', () => {
  it('joins consecutive text chunks of a turn into one event on flush', () => {
    const { coalescer, emitted } = setup();
    coalescer.push('t1', text('Hel'));
    coalescer.push('t1', text('lo, '));
    coalescer.push('t1', text('world'));
    expect(emitted).toEqual([]);
    coalescer.flush();
    expect(emitted).toEqual([
      { turnId: 't1', kind: 'text', content: 'Hello, world', metadata: {} },
    ]);
  });

  it('emits the buffer when the kind changes, keeping the order', () => {
    const { coalescer, emitted } = setup();
    coalescer.push('t1', thought('think '));
    coalescer.push('t1', thought('more'));
    coalescer.push('t1', text('answer'));
    coalescer.push('t1', tool('run'));
    coalescer.push('t1', text('done'));
    coalescer.flush();
    expect(emitted.map((output) => [output.kind, output.content])).toEqual([
      ['thought', 'think more'],
      ['text', 'answer'],
      ['tool_call', 'run'],
      ['text', 'done'],
    ]);
  });

  it('never joins text across turns', () => {
    const { coalescer, emitted } = setup();
    coalescer.push('t1', text('a'));
    coalescer.push('t2', text('b'));
    coalescer.flush();
    expect(emitted.map((output) => [output.turnId, output.content])).toEqual([
      ['t1', 'a'],
      ['t2', 'b'],
    ]);
  });

  it('flushes after the interval so streamed text shows while the turn runs', () => {
    const { coalescer, emitted, pending, fireAll } = setup();
    coalescer.push('t1', text('a'));
    coalescer.push('t1', text('b'));
    expect(pending.map((entry) => entry.ms)).toEqual([200]);
    fireAll();
    expect(emitted.map((output) => output.content)).toEqual(['ab']);
    coalescer.push('t1', text('c'));
    coalescer.flush();
    expect(emitted.map((output) => output.content)).toEqual(['ab', 'c']);
  });

  it('cancels the interval when flushed early and skips empty text', () => {
    const { coalescer, emitted, pending } = setup();
    coalescer.push('t1', text(''));
    coalescer.flush();
    expect(pending[0]?.cancelled).toBe(true);
    expect(emitted).toEqual([]);
    coalescer.flush();
    expect(emitted).toEqual([]);
  });

  it('passes standalone pieces through with their metadata', () => {
    const { coalescer, emitted } = setup();
    coalescer.push('t1', tool('a'));
    coalescer.push('t1', tool('b'));
    expect(emitted).toEqual([
      { turnId: 't1', kind: 'tool_call', content: 'a', metadata: { toolCallId: 'a' } },
      { turnId: 't1', kind: 'tool_call', content: 'b', metadata: { toolCallId: 'b' } },
    ]);
  });
});
