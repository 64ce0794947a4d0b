/** A channel URL's problems as the web app names them, by the rules the wire refuses with. */
import { describe, expect, it } from 'vitest';
import { channelUrlProblem } from './channel-url.js';
import { MAX_URL_CHARS } from './limits.js';
import { newChannelBody } from './notifications.js';

describe('channelUrlProblem', () => {
  it.each([
    ['webhook', 'https://relay.test/hook', undefined],
    ['webhook', '  https://relay.test/hook  ', undefined],
    ['ntfy', 'https://ntfy.sh/my-topic', undefined],
    ['webhook', `https://relay.test/${'a'.repeat(MAX_URL_CHARS)}`, 'too_long'],
    ['webhook', 'ftp://relay.test/hook', 'not_http'],
    ['slack', 'relay.test/hook', 'not_http'],
    ['webhook', 'https://user:pw@relay.test/hook', 'has_credentials'],
    ['ntfy', 'https://ntfy.sh/', 'no_ntfy_topic'],
    ['ntfy', 'https://ntfy.sh/bad.topic', 'no_ntfy_topic'],
  ] as const)('%s %s: %s', (kind, url, problem) => {
    expect(channelUrlProblem(kind, url)).toBe(problem);
    // The server refuses exactly the URLs the page names a problem for.
    expect(newChannelBody.safeParse({ kind, url }).success).toBe(problem === undefined);
  });
});
