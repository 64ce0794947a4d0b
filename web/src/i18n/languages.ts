/**
 * The supported languages, apart from their catalogs: what the page needs to
 * pick and name a language without loading every catalog (`catalogs.ts`).
 */
export const LANGUAGES = ['en', 'de', 'ja'] as const;

export type Language = (typeof LANGUAGES)[number];

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
