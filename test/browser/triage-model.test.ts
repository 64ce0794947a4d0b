/**
 * The triage inbox's and the decision log's framework-free parts in Node:
 * the order (expiring first, then oldest), "Next waiting item", which
 * consents may be decided together and with which option, the bulk loop's
 * per-item report, and the CSV export (escaping, formula guard, every page).
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiResult, DecisionFilter } from '../../web/src/model/api.js';
import { decideAll } from '../../web/src/model/bulk-consent.js';
import {
  allDecisions,
  DECISION_CSV_COLUMNS,
  decisionsCsv,
} from '../../web/src/model/decision-csv.js';
import {
  bulkGroupOf,
  bulkOptionOf,
  nextWaitingItem,
  triageOrder,
  type TriageItem,
} from '../../web/src/model/triage.js';
import type { ConsentView, DecisionEntry, DecisionListReply } from '../../web/src/model/types.js';

function ts(n: number): string {
  return `2026-01-01T00:00:${String(n).padStart(2, '0')}.000000000Z`;
}

function consent(id: string, extra: Partial<ConsentView> = {}): ConsentView {
  return {
    id,
    session_id: `s-${id}`,
    task_id: `t-${id}`,
    status: 'awaiting',
    revision: 1,
    created_at: ts(1),
    deadline_at: ts(50),
    settled_reason: null,
    responded_by: null,
    title: `Run ${id}`,
    kind: 'consent',
    tool_key: 'bash',
    details: [],
    options: [
      { option_id: 'always', label: 'Always allow', kind: 'allow_always' },
      { option_id: 'once', label: 'Allow once', kind: 'allow_once' },
      { option_id: 'no', label: 'Reject', kind: 'reject_once' },
    ],
    selected_option_id: null,
    remembered: false,
    reason: null,
    ...extra,
  };
}

function item(key: string, created: number, deadline: number | null, extra = {}): TriageItem {
  return {
    key,
    kind: 'question',
    session_id: `s-${key}`,
    task_id: `t-${key}`,
    task_title: key,
    agent: 'demo',
    owner: null,
    created_at: ts(created),
    deadline_at: deadline === null ? null : ts(deadline),
    source: 'bundle',
    bundle: undefined as never,
    ...extra,
  };
}

function consentItem(view: ConsentView, agent = 'demo'): TriageItem {
  return {
    ...item(view.id, 1, 50),
    kind: 'permission',
    agent,
    source: 'user_input',
    entry: { view, generation: 1, retired: false },
  };
}

describe('triage order', () => {
  it('puts what expires first, soonest first, then the longest waiting', () => {
    const items = [
      item('new-question', 9, null),
      item('late-deadline', 8, 40),
      item('old-question', 2, null),
      item('soon-deadline', 7, 20),
      item('older-question', 1, null),
    ];
    expect(items.sort(triageOrder).map((entry) => entry.key)).toEqual([
      'soon-deadline',
      'late-deadline',
      'older-question',
      'old-question',
      'new-question',
    ]);
  });

  it('leads "Next waiting item" to the first item of another session', () => {
    const items = [item('a', 1, null), item('b', 2, null)];
    expect(nextWaitingItem(items, 's-a')?.key).toBe('b');
    expect(nextWaitingItem(items, 's-b')?.key).toBe('a');
    expect(nextWaitingItem([item('a', 1, null)], 's-a')).toBeUndefined();
  });
});

describe('bulk consent', () => {
  it('groups consents by agent profile and tool, and never a question', () => {
    expect(bulkGroupOf(consentItem(consent('a')))).toBe(bulkGroupOf(consentItem(consent('b'))));
    expect(bulkGroupOf(consentItem(consent('a')))).not.toBe(
      bulkGroupOf(consentItem(consent('b', { tool_key: 'edit' }))),
    );
    expect(bulkGroupOf(consentItem(consent('a')))).not.toBe(
      bulkGroupOf(consentItem(consent('b'), 'claude')),
    );
    expect(bulkGroupOf(item('q', 1, null))).toBeUndefined();
  });

  it('picks the once-only option, never "always"', () => {
    expect(bulkOptionOf(consent('a'), 'allow')).toBe('once');
    expect(bulkOptionOf(consent('a'), 'reject')).toBe('no');
    expect(bulkOptionOf(consent('a', { options: [] }), 'allow')).toBeUndefined();
  });

  it('sends one respond per request and reports each outcome', async () => {
    const sent: [string, unknown][] = [];
    const api: Pick<ApiClient, 'respondUserInput'> = {
      respondUserInput: (id, answer) => {
        sent.push([id, answer]);
        const result: ApiResult<{ request: ConsentView }> =
          id === 'taken'
            ? { ok: false, kind: 'http', status: 409, code: 'not_active', error: '' }
            : id === 'down'
              ? { ok: false, kind: 'network', error: 'offline' }
              : {
                  ok: true,
                  status: 200,
                  value: { request: consent(id, { status: 'settled', revision: 2 }) },
                };
        return Promise.resolve(result);
      },
    };
    const seen: string[] = [];
    const results = await decideAll(
      api,
      [consent('ok'), consent('taken'), consent('down'), consent('odd', { options: [] })],
      'allow',
      { onEach: ({ view }) => seen.push(view.id) },
    );
    expect(sent).toEqual([
      ['ok', { option_id: 'once' }],
      ['taken', { option_id: 'once' }],
      ['down', { option_id: 'once' }],
    ]);
    expect(seen).toEqual(['ok', 'taken', 'down', 'odd']);
    expect(results.map((result) => [result.view.id, result.outcome.kind])).toEqual([
      ['ok', 'answered'],
      ['taken', 'already_settled'],
      ['down', 'retryable'],
      ['odd', 'no_option'],
    ]);
  });

  it('sends one reason with every reject of a bulk Reject, and none with an allow or a blank one', async () => {
    const sent: [string, unknown][] = [];
    const api: Pick<ApiClient, 'respondUserInput'> = {
      respondUserInput: (id, answer) => {
        sent.push([id, answer]);
        return Promise.resolve({
          ok: true as const,
          status: 200,
          value: { request: consent(id, { status: 'settled', revision: 2 }) },
        });
      },
    };
    await decideAll(api, [consent('a'), consent('b')], 'reject', { reason: 'Not on main' });
    await decideAll(api, [consent('c')], 'reject', { reason: '' });
    await decideAll(api, [consent('d')], 'allow', { reason: 'ignored' });
    expect(sent).toEqual([
      ['a', { option_id: 'no', reason: 'Not on main' }],
      ['b', { option_id: 'no', reason: 'Not on main' }],
      ['c', { option_id: 'no' }],
      ['d', { option_id: 'once' }],
    ]);
  });
});

function entry(n: number, extra: Partial<DecisionEntry> = {}): DecisionEntry {
  return {
    message_id: `m-${String(n)}`,
    session_id: 's-1',
    task_id: 't-1',
    task_title: 'Fix the build',
    session_deleted: false,
    kind: 'question',
    subject: 'Which file?',
    outcome: 'answered',
    detail: 'Generated',
    remembered: false,
    option_kind: null,
    always_rule: null,
    responded_by: { user_id: 'u-1', name: 'Ada', surface: 'web' },
    decided_at: ts(n),
    ...extra,
  };
}

describe('decision CSV', () => {
  it('writes a header and one quoted, formula-safe row per decision', () => {
    const csv = decisionsCsv([
      entry(2, { subject: 'Say "hi", then\nleave', detail: '=HYPERLINK("x")' }),
      entry(1, {
        kind: 'consent',
        outcome: 'allowed',
        remembered: true,
        detail: '-rf',
        option_kind: 'allow_always',
        always_rule: 'set',
      }),
    ]);
    // The byte order mark is what makes Excel read the file as UTF-8.
    expect(csv.startsWith('\uFEFF')).toBe(true);
    const lines = csv.slice(1).split('\r\n');
    expect(lines[0]).toBe(DECISION_CSV_COLUMNS.join(','));
    expect(lines[1]).toBe(
      `${ts(2)},question,answered,"Say ""hi"", then\nleave","'=HYPERLINK(""x"")",false,Fix the build,t-1,s-1,false,Ada,u-1,web,m-2,,`,
    );
    expect(lines[2]).toBe(
      `${ts(1)},consent,allowed,Which file?,'-rf,true,Fix the build,t-1,s-1,false,Ada,u-1,web,m-1,allow_always,set`,
    );
    expect(lines[3]).toBe('');
  });

  it('keeps non-ASCII names intact in the UTF-8 bytes a spreadsheet reads', () => {
    const csv = decisionsCsv([
      entry(1, { responded_by: { user_id: 'u-1', name: 'Jürgen 山田', surface: 'web' } }),
    ]);
    const bytes = new TextEncoder().encode(csv);
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes)).toContain(',Jürgen 山田,');
  });

  it('exports every page under the filter, and nothing when a page fails', async () => {
    const calls: [string | undefined, DecisionFilter | undefined, number | undefined][] = [];
    const pages: Record<'first' | 'c1', DecisionListReply> = {
      first: { decisions: [entry(3), entry(2)], next_cursor: 'c1' },
      c1: { decisions: [entry(1)], next_cursor: null },
    };
    const api: Pick<ApiClient, 'decisions'> = {
      decisions: (cursor, filter, limit) => {
        calls.push([cursor, filter, limit]);
        return Promise.resolve({
          ok: true,
          status: 200,
          value: cursor === 'c1' ? pages.c1 : pages.first,
        });
      },
    };
    const all = await allDecisions(api, { kind: 'question' });
    expect(all?.map((decision) => decision.message_id)).toEqual(['m-3', 'm-2', 'm-1']);
    expect(calls).toEqual([
      [undefined, { kind: 'question' }, 200],
      ['c1', { kind: 'question' }, 200],
    ]);
    const failing: Pick<ApiClient, 'decisions'> = {
      decisions: () => Promise.resolve({ ok: false, kind: 'network', error: 'offline' }),
    };
    await expect(allDecisions(failing, {})).resolves.toBeUndefined();
  });
});
