/**
 * Text rules every surface shares (pure, no zod, so the web app uses the same
 * ones): what text is storable in both engines, what counts as saying
 * nothing, and how the answer-text cap counts.
 *
 * Storable: PostgreSQL refuses NUL in text and jsonb (a 500 once it reaches
 * the database), and both drivers encode an unpaired surrogate as U+FFFD, so
 * the stored text would silently differ from what was sent. Both are refused
 * up front, anywhere in a request, as `invalid_text`.
 */
import { MAX_TEXT_ISSUES } from './limits.js';

export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (hasLoneSurrogate(value)) return 'must be well-formed Unicode (no unpaired surrogates)';
  return undefined;
}

// Reused: a decode without `stream` starts afresh, even after one that threw.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes as UTF-8 text, or undefined when they are not UTF-8: never U+FFFD in
 * place of a broken sequence. A leading BOM is dropped, as `Request.text()`
 * drops it.
 */
export function decodeUtf8(bytes: ArrayBuffer | Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** `application/json`, with or without parameters such as `charset`: a body REST and `/mcp` read. */
export function isJsonMediaType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const [essence = ''] = contentType.split(';');
  return essence.trim().toLowerCase() === 'application/json';
}

/** One string that is not storable text: its dotted path in the value, and why. */
export interface TextIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Every string (object keys included) in a parsed JSON value that
 * `textProblem` refuses, up to `MAX_TEXT_ISSUES`. Iterative, so a deeply
 * nested body cannot exhaust the stack.
 */
export function textIssues(value: unknown): TextIssue[] {
  interface Node {
    readonly value: unknown;
    readonly key: string | undefined;
    readonly parent: Node | undefined;
  }
  const pathOf = (node: Node, key?: string): string => {
    const keys: string[] = key === undefined ? [] : [key];
    for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
    return keys.reverse().join('.');
  };
  const issues: TextIssue[] = [];
  const stack: Node[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0 && issues.length < MAX_TEXT_ISSUES) {
    const node = stack.pop() as Node;
    const current = node.value;
    if (typeof current === 'string') {
      const problem = textProblem(current);
      if (problem) issues.push({ path: pathOf(node), message: problem });
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index] as unknown, key: String(index), parent: node });
      }
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current as Record<string, unknown>).reverse();
      for (const [key, child] of entries) {
        const problem = textProblem(key);
        if (problem) issues.push({ path: pathOf(node, key), message: problem });
        stack.push({ value: child, key, parent: node });
      }
    }
  }
  return issues.slice(0, MAX_TEXT_ISSUES);
}

/**
 * Whether a reader would see nothing: only whitespace, control characters
 * and invisible format characters (zero-width space and joiners, word
 * joiner, BOM, soft hyphen, direction marks, and every other default-ignorable
 * code point, the Hangul fillers among them), and the letters and symbols
 * drawn as nothing: the Braille blank (U+2800), which no Unicode property
 * marks invisible because a blank cell is a real Braille pattern, and the
 * musical null notehead (U+1D159). Such text is no answer and no name.
 */
export function isBlankText(value: string): boolean {
  return BLANK.test(value);
}
const BLANK = /^[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800\u{1D159}]*$/u;

/** Custom text and reasons as they are kept: trimmed, and empty when nothing in them shows. */
export function answerText(value: string): string {
  return isBlankText(value) ? '' : value.trim();
}

/**
 * What tells two option labels apart for a person reading them, as the keys
 * a label reads as: two labels that share a key are one choice twice, so an
 * ask or form that offers them is refused (`labelsReadingTheSame`).
 *
 * Not told apart: case; compatibility forms (NFKC: fullwidth `Ａ`,
 * mathematical `𝐀`, the `ﬁ` ligature, `é` written as one or two code
 * points); how much whitespace separates words or surrounds them; invisible
 * characters (zero-width space, joiners, soft hyphen); marks drawn over or
 * around a letter (`DRAWN_OVER`); and Cyrillic or Greek letters drawn as a
 * Latin one (`LATIN_LOOKALIKES`). Told apart: bidi controls, which every
 * surface shows as markers; and accents, which make another letter in real
 * words (German "ändern" and "andern", French "côte" and "cote", Spanish
 * "sí" and "si"), so refusing them would refuse honest choices.
 *
 * Two keys, because a lookalike holds in one case only: Cyrillic `Н` looks
 * like `H` but `н` like no Latin letter, Greek `ν` like `v` but `Ν` like `N`.
 * So the key maps the label's lowercase and its uppercase each, then ignores
 * case. Each table maps letters of one script to distinct Latin letters, so
 * two words of one script share a key only if they differ by case alone.
 */
function optionLabelKeys(label: string): readonly [string, string] {
  const folded = label
    .normalize('NFKC')
    .replace(INVISIBLE, (char) => (BIDI_CONTROL.test(char) ? char : ''))
    .replace(DRAWN_OVER, '')
    .replace(/\p{White_Space}+/gu, ' ')
    .trim();
  const key = (cased: string) =>
    Array.from(cased, (char) => LATIN_LOOKALIKES.get(char) ?? char)
      .join('')
      .toLowerCase()
      .normalize('NFC');
  return [key(folded.toLowerCase()), key(folded.toUpperCase())];
}
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * For each label, the index of the first earlier one that reads the same
 * (`optionLabelKeys`), or undefined when none does.
 */
export function labelsReadingTheSame(labels: readonly string[]): (number | undefined)[] {
  const seen = new Map<string, number>();
  return labels.map((label, index) => {
    const keys = optionLabelKeys(label);
    const earlier = keys.map((key) => seen.get(key)).filter((at): at is number => at !== undefined);
    for (const key of keys) if (!seen.has(key)) seen.set(key, index);
    return earlier.length === 0 ? undefined : Math.min(...earlier);
  });
}

/**
 * Combining marks that strike through, overlay or enclose the letter before
 * them (canonical combining class 1, Overlay, and the enclosing marks, Me):
 * `Allow` with U+0336 over its last letter still reads "Allow".
 * Accents and other marks beside a letter stay (see `optionLabelKeys`).
 */
const DRAWN_OVER =
  /[\u0334-\u0338\u1CD4\u1CE2-\u1CE8\u20D2\u20D3\u20D8-\u20DA\u20E5\u20E6\u20EA\u20EB\u{10A39}\u{16AF0}-\u{16AF4}\u{1BC9E}\u{1D167}-\u{1D169}\p{Me}]/gu;

/**
 * Cyrillic and Greek letters a Latin reader takes for a Latin letter (from
 * Unicode's confusables, UTS #39), in the case they look alike in: each row
 * is a script's letters and, position for position, their Latin lookalikes.
 * Fullwidth and mathematical letters need no entry: NFKC folds them first.
 * Left out on purpose: letters that also look like another letter of their
 * own script (Kazakh `Ү` and `У` both look like `Y`), which would make words
 * of one language collide, and letters only like a small capital (`н`, `т`,
 * `в`, `к`).
 */
const LATIN_LOOKALIKES = new Map<string, string>(
  [
    ['АВЕКМНОРСТУХЅІЈԚԜ', 'ABEKMHOPCTYXSIJQW'],
    ['агеопрсухѕіјԁԛԝһӏ', 'areonpcyxsijdqwhl'],
    ['ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿ', 'ABEZHIKMNOPTYXCJ'],
    ['αγηινορυχϲϳ', 'aynivopuxcj'],
  ].flatMap(([letters = '', latin = '']) =>
    Array.from(letters, (letter, index) => [letter, latin[index] ?? letter] as const),
  ),
);

/**
 * Text from a source that cannot be refused (an agent's output), made
 * storable: NUL dropped, unpaired surrogates as U+FFFD.
 */
export function storableText(value: string): string {
  if (textProblem(value) === undefined) return value;
  let kept = '';
  // A string iterates by code point; an unpaired surrogate comes out alone.
  for (const char of value) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) kept += '\ufffd';
    else if (char !== '\u0000') kept += char;
  }
  return kept;
}

/**
 * `storableText` within `maxUnits` UTF-16 units (the unit `.length` and every
 * text limit count): past it, its start and an ellipsis, never half a pair.
 */
export function clippedText(value: string, maxUnits: number): string {
  const text = storableText(value);
  if (text.length <= maxUnits) return text;
  let kept = '';
  for (const char of text) {
    if (kept.length + char.length >= maxUnits) break;
    kept += char;
  }
  return `${kept}…`;
}

/** `storableText` for every string of a JSON value, keys included; the value itself when all are. */
export function storableJson<T>(value: T): T {
  if (textIssues(value).length === 0) return value;
  const clean = (item: unknown): unknown => {
    if (typeof item === 'string') return storableText(item);
    if (Array.isArray(item)) return item.map(clean);
    if (typeof item === 'object' && item !== null) {
      return Object.fromEntries(
        Object.entries(item).map(([key, child]) => [storableText(key), clean(child)]),
      );
    }
    return item;
  };
  return clean(value) as T;
}

/**
 * A label from a source that cannot be refused (an MCP client's self-chosen
 * name), storable, on one line, and cut to `maxCodePoints` without splitting
 * a pair.
 */
export function storableLabel(value: string, maxCodePoints: number): string {
  let kept = '';
  let count = 0;
  for (const char of storableText(value)) {
    if (count >= maxCodePoints) break;
    if (CONTROL.test(char)) continue;
    kept += char;
    count++;
  }
  return kept;
}
const CONTROL = /^\p{Cc}$/u;

/**
 * Bidi controls in supplied text (titles, names, questions, option labels),
 * shown rather than obeyed, on every surface: the web app (`UserText`) and
 * the notices the server writes (a phone's notification has no isolate to
 * contain them). An override makes `invoice<U+202E>fdp.exe` read as
 * "invoiceexe.pdf"; an embedding or isolate does the same more quietly; and
 * a mark, though it cannot reorder letters, moves digits and punctuation:
 * `10<U+200F>.5` reads "105." in a left-to-right line and "5.10" in a
 * `<bdi>`. So what a person approves could differ from what it says.
 */
// Embeddings, overrides and their terminator (U+202A–U+202E), isolates (U+2066–U+2069),
// the marks (U+200E, U+200F) and the Arabic letter mark (U+061C).
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;

export type BidiPiece =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'control'; readonly code: string };

/** `text` split into runs of ordinary text and single bidi controls ("U+202E"), in order. */
export function splitBidiControls(text: string): BidiPiece[] {
  const pieces: BidiPiece[] = [];
  let run = '';
  for (const char of text) {
    if (!BIDI_CONTROL.test(char)) {
      run += char;
      continue;
    }
    if (run !== '') pieces.push({ kind: 'text', text: run });
    run = '';
    const code = (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    pieces.push({ kind: 'control', code: `U+${code}` });
  }
  if (run !== '') pieces.push({ kind: 'text', text: run });
  return pieces;
}

/**
 * `text` with each bidi control written out as ⟨U+202E⟩: for plain strings
 * (attributes, a tab's title, a notification). The notation is the web
 * app's, so a person reads the same marker on a phone as in the browser.
 */
export function showBidiControls(text: string): string {
  return splitBidiControls(text)
    .map((piece) => (piece.kind === 'text' ? piece.text : `⟨${piece.code}⟩`))
    .join('');
}

/** Length in Unicode code points, the unit of the answer-text cap (not UTF-16 units, not graphemes). */
export function codePoints(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

// String.prototype.isWellFormed, which the ES2023 library typings lack.
function hasLoneSurrogate(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      index++;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      return true;
    }
  }
  return false;
}
