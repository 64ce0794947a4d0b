/** Every catalog has every key of the English one, no extras, and the same placeholders. */
import { describe, expect, it } from 'vitest';
import { FORM_ERROR_CODES } from '../../src/wire/form-content.js';
import { TASK_FIELD_PROBLEMS } from '../../src/wire/constants.js';
import { CHANNEL_REFUSALS, CHANNEL_URL_PROBLEMS } from '../../src/wire/channel-url.js';
import { DELIVERY_ERROR_CODES } from '../../src/wire/delivery-errors.js';
import { CATALOGS, flattenKeys, LANGUAGES, pickLanguage } from '../../web/src/i18n/catalogs.js';

function leaf(catalog: object, key: string): string {
  let value: unknown = catalog;
  for (const part of key.split('.')) value = (value as Record<string, unknown>)[part];
  return typeof value === 'string' ? value : '';
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1] ?? '').sort();
}

describe('i18n catalogs', () => {
  const reference = flattenKeys(CATALOGS.en).sort();

  it('has a reference catalog with keys', () => {
    expect(reference.length).toBeGreaterThan(50);
  });

  it.each(LANGUAGES)(
    '%s has exactly the English keys, each non-empty with the same placeholders',
    (language) => {
      const catalog = CATALOGS[language];
      const keys = flattenKeys(catalog).sort();
      expect(
        reference.filter((key) => !keys.includes(key)),
        'missing keys',
      ).toEqual([]);
      expect(
        keys.filter((key) => !reference.includes(key)),
        'extra keys',
      ).toEqual([]);
      for (const key of reference) {
        expect(leaf(catalog, key).trim(), `${language}: ${key}`).not.toBe('');
        expect(placeholders(leaf(catalog, key)), `${language}: ${key}`).toEqual(
          placeholders(leaf(CATALOGS.en, key)),
        );
      }
    },
  );

  it.each(LANGUAGES)('%s words every problem code a form can show', (language) => {
    const catalog = CATALOGS[language];
    const missing = [
      ...FORM_ERROR_CODES.map((code) => `formCard.error.${code}`),
      ...TASK_FIELD_PROBLEMS.map((code) => `newTask.problem.${code}`),
      ...CHANNEL_URL_PROBLEMS.map((code) => `notifications.urlProblem.${code}`),
      ...CHANNEL_REFUSALS.map((code) => `notifications.addRefused.${code}`),
      ...DELIVERY_ERROR_CODES.map((code) => `notifications.deliveryError.${code}`),
    ].filter((key) => leaf(catalog, key).trim() === '');
    expect(missing).toEqual([]);
  });

  it('addresses the person as “du” throughout the German catalog, never “Sie”', () => {
    const formal: string[] = [];
    for (const key of reference) {
      const text = leaf(CATALOGS.de, key);
      // "Sie" opening a sentence is "it/they" ("Sie bleibt erhalten"); inside one it is the formal "you".
      const inside = /(?<![.!?]\s|^)\bSie\b/.test(text);
      if (inside || /\b(Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres|Ihnen)\b/.test(text)) formal.push(key);
    }
    expect(formal).toEqual([]);
  });

  it('picks the first supported browser language by its primary subtag', () => {
    expect(pickLanguage(['de-AT', 'en'])).toBe('de');
    expect(pickLanguage(['fr-FR', 'ja-JP'])).toBe('ja');
    expect(pickLanguage(['fr-FR'])).toBe('en');
    expect(pickLanguage([])).toBe('en');
  });
});
