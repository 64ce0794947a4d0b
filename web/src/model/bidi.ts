/**
 * Bidirectional-text controls in text an agent or a person supplied (titles,
 * commands, option labels, questions). An override such as U+202E makes
 * `invoice<U+202E>fdp.exe` read as "invoiceexe.pdf", so what a person
 * approves could differ from what it says. The web app shows each such
 * control as a visible marker instead of obeying it (`UserText`). Marks
 * (U+200E, U+200F) stay: inside an isolate they cannot reorder letters, and
 * right-to-left text uses them legitimately. Pure.
 */

/** Embeddings, overrides and their terminator (U+202A–U+202E), isolates (U+2066–U+2069). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;

export type TextPiece = { kind: 'text'; text: string } | { kind: 'control'; code: string };

/** "U+202E" for a control character. */
function codeOf(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` split into runs of ordinary text and single bidi controls, in order. */
export function splitBidiControls(text: string): TextPiece[] {
  const pieces: TextPiece[] = [];
  let run = '';
  for (const char of text) {
    if (!BIDI_CONTROL.test(char)) {
      run += char;
      continue;
    }
    if (run !== '') pieces.push({ kind: 'text', text: run });
    run = '';
    pieces.push({ kind: 'control', code: codeOf(char) });
  }
  if (run !== '') pieces.push({ kind: 'text', text: run });
  return pieces;
}

/** `text` with each bidi control written out as ⟨U+XXXX⟩: for attributes and plain strings. */
export function showBidiControls(text: string): string {
  return splitBidiControls(text)
    .map((piece) => (piece.kind === 'text' ? piece.text : `⟨${piece.code}⟩`))
    .join('');
}
