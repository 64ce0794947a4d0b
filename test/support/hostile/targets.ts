/** Pending IDs for the hostile suite, by category: the real bundles, unknown IDs, and every way a path segment can be wrong. */
import { REAL_KEYS, type RealKey, UNKNOWN_ID } from './world.js';
import { Gen } from './gen.js';

/** The ID of a target as the URL carries it, and what it stands for. */
export interface Target {
  category: string;
  /** The path segment as sent (percent-encoded, or raw for percent junk). */
  segment: string;
  label: string;
  real: RealKey | undefined;
}

export const ID_WEIGHTS = {
  real: 22,
  'unknown-uuid': 8,
  'real-variant': 10,
  'sql-injection': 9,
  'path-traversal': 7,
  'json-path': 7,
  'very-long': 6,
  whitespace: 6,
  unicode: 6,
  'percent-junk': 7,
  keyword: 5,
} as const;

export type IdCategory = keyof typeof ID_WEIGHTS;

export function encoded(category: string, id: string, real?: RealKey): Target {
  return { category, segment: encodeURIComponent(id), label: id, real };
}

export function generateTarget(g: Gen, category: IdCategory, ids: Record<RealKey, string>): Target {
  const someReal = ids[g.pick(REAL_KEYS)];
  switch (category) {
    case 'real': {
      const key = g.pick(REAL_KEYS);
      return encoded(category, ids[key], key);
    }
    case 'unknown-uuid':
      return encoded(
        category,
        g.pick([
          g.uuid(),
          g.uuid().toUpperCase(),
          UNKNOWN_ID,
          'ffffffff-ffff-ffff-ffff-ffffffffffff',
          g.uuid().replaceAll('-', ''),
          `{${g.uuid()}}`,
        ]),
      );
    case 'real-variant': {
      const last = someReal.at(-1) ?? '0';
      return encoded(
        category,
        g.pick([
          someReal.toUpperCase(),
          ` ${someReal}`,
          `${someReal} `,
          `${someReal}\n`,
          someReal.slice(0, -1),
          `${someReal}0`,
          someReal.slice(0, -1) + (last === '0' ? '1' : '0'),
          `${someReal}'--`,
          `${someReal}\u200b`,
          someReal.replaceAll('-', ''),
          `${someReal}%`,
          `${someReal}_`,
          someReal.replace(/[0-9a-f]$/, '_'),
          `${someReal},${someReal}`,
          `["${someReal}"]`,
        ]),
      );
    }
    case 'sql-injection':
      return encoded(
        category,
        g.pick([
          "' OR 1=1 --",
          "' OR '1'='1",
          '"; DROP TABLE task_session_messages; --',
          "'; DROP TABLE task_session_messages; --",
          `${someReal}' OR '1'='1`,
          `${someReal}'; UPDATE task_session_messages SET metadata = '{}'; --`,
          "x' UNION SELECT * FROM task_sessions --",
          "%' OR pending_id LIKE '%",
          '1; SELECT pg_sleep(5)',
          "'||(SELECT id FROM task_sessions LIMIT 1)||'",
          '\\',
          "\\'",
          "''",
          '"',
          '`',
          ';',
          '--',
          '/* */',
          "') OR json_extract(metadata, '$.status') = 'pending' --",
          "') OR metadata->>'status' = 'pending' --",
        ]),
      );
    case 'path-traversal':
      return encoded(
        category,
        g.pick([
          '../',
          '../../etc/passwd',
          '..\\..\\windows',
          '%2e%2e',
          '%2e%2e%2f',
          '..%2F',
          '.%2e',
          `${someReal}/../${someReal}`,
          `../${someReal}`,
          `${someReal}/respond`,
          '/',
          '?x=1',
          '#frag',
          `${someReal}?pending_id=${someReal}`,
          '....//',
          '%252e%252e',
        ]),
      );
    case 'json-path':
      return encoded(
        category,
        g.pick([
          '$.pending_id',
          '$',
          '*',
          '$..*',
          '$[0]',
          '@',
          '{}',
          '[]',
          '$."pending_id"',
          'pending_id',
          "metadata->>'pending_id'",
          '{"$ne":null}',
          '{"$gt":""}',
          '%',
          '_',
          '?',
        ]),
      );
    case 'very-long': {
      const length = g.pick([129, 200, 1_000, 4_096, 10_000]);
      const unit = g.pick(['a', '0', someReal, '🦀', '%', "'"]);
      // Sliced by code point, so no surrogate pair is cut in half.
      const id = Array.from(unit.repeat(length)).slice(0, length).join('');
      return encoded(category, id);
    }
    case 'whitespace':
      return encoded(
        category,
        g.pick([' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u200b', '\u3000', '\ufeff', '+']),
      );
    case 'unicode':
      return encoded(
        category,
        g.pick([
          '🦀',
          '👩🏽‍💻',
          `\u202e${someReal}`,
          `${someReal}\u0301`,
          'İ',
          'ﬀ',
          'Ω',
          '\u{10ffff}',
          '\ufffd',
          '日本語',
        ]),
      );
    case 'percent-junk': {
      // Raw segments, not re-encoded: the server decodes (or fails to decode) them.
      const segment = g.pick([
        '%',
        '%%',
        '%zz',
        '%ED%A0%80',
        '%ED%BF%BF',
        '%C0%AF',
        '%C0%AE%C0%AE',
        '%FF',
        '%FF%FE',
        '%E2%80%AE',
        '%25',
        '%2F',
        '%5C',
        '%u0041',
        '%2e%2e%2f',
        `${someReal}%`,
        `%${someReal}`,
        `${someReal}%2F..`,
        '%F0%9F%A6',
        '%%32%65',
      ]);
      return { category, segment, label: `raw:${segment}`, real: undefined };
    }
    case 'keyword':
      return encoded(
        category,
        g.pick([
          '0',
          '-1',
          '1e309',
          'NaN',
          'null',
          'undefined',
          'true',
          '[object Object]',
          '__proto__',
          'constructor',
          'prototype',
          'toString',
          'hasOwnProperty',
          'valueOf',
        ]),
      );
  }
}
