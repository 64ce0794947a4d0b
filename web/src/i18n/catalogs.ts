/**
 * Every catalog at once, for the tests that compare them; English is the
 * reference. The web app loads a catalog only when it shows its language
 * (`index.ts`), so nothing in `web/src` but the tests imports this file.
 */
import { de } from './de.js';
import { en, type Catalog } from './en.js';
import { ja } from './ja.js';
import type { Language } from './languages.js';

export { LANGUAGE_NAMES, LANGUAGES, pickLanguage, type Language } from './languages.js';

export const CATALOGS = { en, de, ja } as const satisfies Record<Language, Catalog>;

/** Every leaf key as a dotted path, for the completeness test. */
export function flattenKeys(catalog: object, prefix = ''): string[] {
  return Object.entries(catalog).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null
      ? flattenKeys(value as object, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}
