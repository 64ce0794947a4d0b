/**
 * The name of an external agent's task: an agent that Clarion did not spawn
 * (someone's own Claude Code with a user token) asks in a session of a task
 * named after its MCP client (`turns/`' `ensureExternalSession`).
 */
import { isBlankText, MAX_TASK_TITLE_CHARS, storableLabel } from '../../wire/index.js';

export const DEFAULT_EXTERNAL_TASK_TITLE = 'External agent';

/**
 * The task title for an MCP client's name (`clientInfo.name`). The name is
 * the client's to choose and only labels a task, so it is made storable
 * rather than refused: refusing would fail `initialize`, and with it every
 * tool, over a label. NUL and controls go, unpaired surrogates become U+FFFD,
 * the cut never splits a pair, and a name with nothing visible is no name.
 */
export function externalTaskTitle(clientName: string | undefined): string {
  const name = storableLabel((clientName ?? '').trim(), MAX_TASK_TITLE_CHARS).trim();
  return isBlankText(name) ? DEFAULT_EXTERNAL_TASK_TITLE : name;
}
