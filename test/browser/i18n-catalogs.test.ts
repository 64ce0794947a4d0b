/** Every catalog has every key of the English one, no extras, and the same placeholders. */
import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { FORM_ERROR_CODES } from '../../src/wire/form-content.js';
import { TASK_FIELD_PROBLEMS } from '../../src/wire/constants.js';
import { CHANNEL_REFUSALS, CHANNEL_URL_PROBLEMS } from '../../src/wire/channel-url.js';
import { DELIVERY_ERROR_CODES } from '../../src/wire/delivery-errors.js';
import { describeAnswer } from '../../web/src/hooks/use-describe-answer.js';
import { CATALOGS, flattenKeys, LANGUAGES, pickLanguage } from '../../web/src/i18n/catalogs.js';
import type { BundleQuestion } from '../../web/src/model/read-model.js';

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

  it('quotes in German „…“ and in Japanese 「…」, never in English or typewriter marks', () => {
    const english: string[] = [];
    for (const key of reference) {
      // German closes with the mark English opens with: what is left once „…“ pairs go is English.
      const german = leaf(CATALOGS.de, key).replace(/„[^„“”"]*“/g, '');
      if (/[“”"]/.test(german)) english.push(`de: ${key}`);
      if (/[“”"„]/.test(leaf(CATALOGS.ja, key))) english.push(`ja: ${key}`);
    }
    expect(english).toEqual([]);
  });

  it.each([
    ['en', 'Hosted, Edge, “on my Pi”'],
    ['de', 'Hosted, Edge, „on my Pi“'],
    ['ja', 'Hosted、Edge、「on my Pi」'],
  ] as const)('lists and quotes an answer in %s marks', async (language, said) => {
    const i18n = i18next.createInstance();
    await i18n.init({
      lng: language,
      resources: { [language]: { translation: CATALOGS[language] } },
    });
    const question = {
      options: [
        { option_id: 'hosted', label: 'Hosted' },
        { option_id: 'edge', label: 'Edge' },
      ],
    } as unknown as BundleQuestion;
    const answer = { selected_options: ['hosted', 'edge'], custom_text: 'on my Pi' };
    expect(describeAnswer(i18n.t, question, answer)).toBe(said);
  });

  it('picks the first supported browser language by its primary subtag', () => {
    expect(pickLanguage(['de-AT', 'en'])).toBe('de');
    expect(pickLanguage(['fr-FR', 'ja-JP'])).toBe('ja');
    expect(pickLanguage(['fr-FR'])).toBe('en');
    expect(pickLanguage([])).toBe('en');
  });
});
