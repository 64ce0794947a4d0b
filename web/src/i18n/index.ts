/**
 * i18next set-up: the language comes from a saved choice, else the browser's
 * preferences; `setLanguage` switches and remembers it.
 *
 * English, the fallback, is in the main bundle; every other catalog is a chunk
 * of its own, loaded only once its language is shown, so a page downloads the
 * words of the languages it shows and no others.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en, type Catalog } from './en.js';
import { LANGUAGES, pickLanguage, type Language } from './languages.js';
import { showBidiControls } from '../model/bidi.js';

const STORAGE_KEY = 'clarion.language';
const NAMESPACE = 'translation';

const LOADERS: Record<Exclude<Language, 'en'>, () => Promise<Catalog>> = {
  de: () => import('./de.js').then((module) => module.de),
  ja: () => import('./ja.js').then((module) => module.ja),
};

function savedLanguage(): Language | undefined {
  try {
    const saved = window.localStorage.getItem(STORAGE_KEY);
    return LANGUAGES.find((language) => language === saved);
  } catch {
    return undefined;
  }
}

/** `language`'s catalog, or `undefined` when its chunk did not arrive (offline, a build replaced under the page). */
async function importCatalog(language: Language): Promise<Catalog | undefined> {
  if (language === 'en') return en;
  try {
    return await LOADERS[language]();
  } catch {
    return undefined;
  }
}

export async function initI18n(): Promise<typeof i18next> {
  const wanted = savedLanguage() ?? pickLanguage(window.navigator.languages);
  const catalog = await importCatalog(wanted);
  const lng = catalog ? wanted : 'en';
  await i18next.use(initReactI18next).init({
    lng,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    resources: { en: { [NAMESPACE]: en }, [lng]: { [NAMESPACE]: catalog ?? en } },
    // React escapes markup itself; what i18next must not pass through is a bidi control in a
    // name, title or option put into a sentence, which would make it read as something else.
    interpolation: { escapeValue: true, escape: showBidiControls },
  });
  document.documentElement.lang = lng;
  return i18next;
}

let latestChoice = 0;

/**
 * Switches to `language` once its catalog is loaded. When it cannot be loaded the page
 * stays in the language it shows, which is also the one remembered, and `false` says so;
 * choosing it again tries again. Of two choices made while a catalog loads, the later wins.
 */
export async function setLanguage(language: Language): Promise<boolean> {
  const choice = ++latestChoice;
  if (!i18next.hasResourceBundle(language, NAMESPACE)) {
    const catalog = await importCatalog(language);
    // A later choice speaks for the page now; this one failing says nothing of it.
    if (!catalog) return choice !== latestChoice;
    i18next.addResourceBundle(language, NAMESPACE, catalog);
  }
  if (choice !== latestChoice) return true;
  try {
    window.localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // Not remembered, still switched.
  }
  await i18next.changeLanguage(language);
  document.documentElement.lang = language;
  return true;
}
