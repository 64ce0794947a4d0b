/**
 * The name of an external agent's task: an agent that Clarion did not spawn
 * (someone's own Claude Code with a user token) asks in a session of a task
 * named after its MCP client (`turns/`' `ensureExternalSession`).
 */
import {
  codePoints,
  isBlankText,
  MAX_TASK_TITLE_CHARS,
  splitBidiControls,
  storableLabel,
} from '../../wire/index.js';

export const DEFAULT_EXTERNAL_TASK_TITLE = 'External agent';

/**
 * The task title for an MCP client's name (`clientInfo.name`). The name is
 * the client's to choose and only labels a task, so it is made storable
 * rather than refused: refusing would fail `initialize`, and with it every
 * tool, over a label. NUL and controls go, unpaired surrogates become U+FFFD,
 * the cut never splits a pair, and a name with nothing visible is no name.
 * Its bidi controls are written out as markers (⟨U+202E⟩) in the title
 * itself: a label the server made should read as written wherever it goes
 * (logs, webhooks, exports), not only where a surface marks supplied text.
 */
export function externalTaskTitle(clientName: string | undefined): string {
  const name = storableLabel((clientName ?? '').trim(), MAX_TASK_TITLE_CHARS).trim();
  return isBlankText(name) ? DEFAULT_EXTERNAL_TASK_TITLE : markedWithin(name, MAX_TASK_TITLE_CHARS);
}

/** `text` with its bidi controls as markers, in `maxCodePoints`; a marker that does not fit goes whole. */
function markedWithin(text: string, maxCodePoints: number): string {
  let kept = '';
  let count = 0;
  for (const piece of splitBidiControls(text)) {
    const room = maxCodePoints - count;
    const shown = piece.kind === 'text' ? storableLabel(piece.text, room) : `⟨${piece.code}⟩`;
    if (codePoints(shown) > room) break;
    kept += shown;
    count += codePoints(shown);
  }
  return kept;
}
