/**
 * Buttons that can be on screen together say what each does, in every
 * language (issue 15: in Japanese one "送信" labelled three of them, and the
 * live badge read as "connecting").
 */
import { describe, expect, it } from 'vitest';
import { CATALOGS, LANGUAGES } from '../../web/src/i18n/catalogs.js';

/**
 * On a phone the session shows the composer's Send, the overlay's Submit and
 * the custom answer's button at once; their busy labels share the status line.
 */
function sessionButtons(language: (typeof LANGUAGES)[number]) {
  const catalog = CATALOGS[language];
  return {
    idle: [catalog.composer.send, catalog.clarification.submit, catalog.clarification.send],
    busy: [catalog.composer.sending, catalog.clarification.submitting],
  };
}

describe('button labels', () => {
  it.each(LANGUAGES)('%s names each session button differently, idle and busy', (language) => {
    const { idle, busy } = sessionButtons(language);
    expect(new Set(idle).size, idle.join(' | ')).toBe(idle.length);
    expect(new Set(busy).size, busy.join(' | ')).toBe(busy.length);
  });

  it.each(LANGUAGES)('%s tells a live connection from one being made', (language) => {
    const { app } = CATALOGS[language];
    expect(new Set([app.live, app.connecting, app.offline]).size).toBe(3);
  });

  it('says in Japanese that the connection is up, not that it is being made', () => {
    // 接続中 reads as "connecting"; the badge shows an established connection.
    expect(CATALOGS.ja.app.live).not.toMatch(/接続中|しています/);
    expect(CATALOGS.ja.app.connecting).toMatch(/接続しています/);
  });
});
