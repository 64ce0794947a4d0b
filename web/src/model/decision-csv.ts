/**
 * The decision log as CSV (RFC 4180: CRLF rows, fields quoted when they hold
 * a comma, quote or line break, quotes doubled). A field that a spreadsheet
 * would run as a formula (it starts with =, +, -, @, tab or CR) gets a
 * leading apostrophe: the text is an agent's or a person's words, never a
 * formula. Column names are fixed English identifiers, for scripts; a
 * consent's `option_kind` says what the chosen option did whatever its label
 * said, and `always_rule` whether it set or applied an "Always allow" rule
 * (both empty for other kinds), as the log's JSON does. The
 * file starts with a UTF-8 byte order mark: without it Excel reads the file
 * in the local code page and garbles every non-ASCII name.
 */
import type { ApiClient, DecisionFilter } from './api.js';
import type { DecisionEntry } from './types.js';
import { MAX_DECISION_PAGE } from '../../../src/wire/limits.js';

export const DECISION_CSV_COLUMNS = [
  'decided_at',
  'kind',
  'outcome',
  'subject',
  'detail',
  'remembered',
  'task_title',
  'task_id',
  'session_id',
  'session_deleted',
  'person',
  'person_id',
  'surface',
  'message_id',
  // Last, so a script that reads columns by position still finds the earlier ones.
  'option_kind',
  'always_rule',
] as const;

function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function row(entry: DecisionEntry): string[] {
  return [
    entry.decided_at,
    entry.kind,
    entry.outcome,
    entry.subject,
    entry.detail,
    entry.remembered ? 'true' : 'false',
    entry.task_title,
    entry.task_id,
    entry.session_id,
    entry.session_deleted ? 'true' : 'false',
    entry.responded_by.name,
    entry.responded_by.user_id,
    entry.responded_by.surface,
    entry.message_id,
    entry.option_kind ?? '',
    entry.always_rule ?? '',
  ];
}

const UTF8_BOM = '\uFEFF';

export function decisionsCsv(entries: readonly DecisionEntry[]): string {
  const lines = [[...DECISION_CSV_COLUMNS], ...entries.map(row)];
  return UTF8_BOM + lines.map((line) => line.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** Every page of the log under `filter`, newest first; `undefined` when a page failed. */
export async function allDecisions(
  api: Pick<ApiClient, 'decisions'>,
  filter: DecisionFilter,
): Promise<DecisionEntry[] | undefined> {
  const entries: DecisionEntry[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await api.decisions(cursor, filter, MAX_DECISION_PAGE);
    if (!page.ok) return undefined;
    entries.push(...page.value.decisions);
    if (page.value.next_cursor === null) return entries;
    cursor = page.value.next_cursor;
  }
}
