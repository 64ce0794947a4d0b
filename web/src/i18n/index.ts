/**
 * i18next set-up: the language comes from a saved choice, else the browser's
 * preferences; `setLanguage` switches and remembers it.
 */
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { CATALOGS, LANGUAGES, pickLanguage, type Language } from './catalogs.js';
import { showBidiControls } from '../model/bidi.js';

const STORAGE_KEY = 'clarion.language';

function savedLanguage(): Language | undefined {
  try {
    const saved = window.localStorage.getItem(STORAGE_KEY);
    return LANGUAGES.find((language) => language === saved);
  } catch {
    return undefined;
  }
}

export async function initI18n(): Promise<typeof i18next> {
  const lng = savedLanguage() ?? pickLanguage(window.navigator.languages);
  await i18next.use(initReactI18next).init({
    lng,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    resources: Object.fromEntries(
      Object.entries(CATALOGS).map(([language, catalog]) => [language, { translation: catalog }]),
    ),
    // React escapes markup itself; what i18next must not pass through is a bidi control in a
    // name, title or option put into a sentence, which would make it read as something else.
    interpolation: { escapeValue: true, escape: showBidiControls },
  });
  document.documentElement.lang = lng;
  return i18next;
}

export async function setLanguage(language: Language): Promise<void> {
  try {
    window.localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // Not remembered, still switched.
  }
  await i18next.changeLanguage(language);
  document.documentElement.lang = language;
}
