/**
 * A sign-in link's secret as it reaches us from mail and prose (pure, no zod,
 * so the web app reads a fragment by the same rule the server reads a query).
 * A secret is `clr_` and base64url (`src/auth/tokens.ts`), so a character
 * after it outside that alphabet (a full stop, a closing bracket or angle
 * bracket, a space or line break a mail client or a Markdown renderer added)
 * was never part of it. Kept, it made the lookup miss and the page call a
 * good link used or expired.
 */

/** Whether `char` may appear in a secret: base64url, and `clr_`'s letters and underscore. */
function inSecretAlphabet(char: string): boolean {
  return /^[A-Za-z0-9_-]$/.test(char);
}

/** `text` without the characters trailing it that no secret has; only the end is trimmed. */
export function signInSecretOf(text: string): string {
  // A backward scan rather than /[^…]+$/, which costs quadratic time on a long run of them.
  let end = text.length;
  while (end > 0 && !inSecretAlphabet(text.charAt(end - 1))) end -= 1;
  return text.slice(0, end);
}
