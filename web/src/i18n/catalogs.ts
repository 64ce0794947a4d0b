/** The supported languages and their catalogs; English is the reference. */
import { de } from './de.js';
import { en, type Catalog } from './en.js';
import { ja } from './ja.js';

export const CATALOGS = { en, de, ja } as const satisfies Record<string, Catalog>;

export type Language = keyof typeof CATALOGS;

export const LANGUAGES: readonly Language[] = ['en', 'de', 'ja'];

export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  de: 'Deutsch',
  ja: '日本語',
};

/** The first supported language among the browser's preferences, by primary subtag. */
export function pickLanguage(preferences: readonly string[]): Language {
  for (const tag of preferences) {
    const primary = tag.toLowerCase().split('-')[0];
    const match = LANGUAGES.find((language) => language === primary);
    if (match) return match;
  }
  return 'en';
}

/** Every leaf key as a dotted path, for the completeness test. */
export function flattenKeys(catalog: object, prefix = ''): string[] {
  return Object.entries(catalog).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null
      ? flattenKeys(value as object, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}
