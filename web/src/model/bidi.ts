/**
 * Bidi controls in supplied text, for the web app: the rule (which
 * characters, how a marker is written) is `src/wire/text.ts`'s, shared with
 * the server's notices so a phone and the browser show the same marker.
 * `UserText` renders the pieces; `showBidiControls` writes plain strings.
 */
export { showBidiControls, splitBidiControls } from '../../../src/wire/text.js';
