/** The page's language: in the header signed out, in the account menu signed in. */
import { useTranslation } from 'react-i18next';
import { LANGUAGE_NAMES, LANGUAGES, type Language } from '../i18n/catalogs.js';
import { setLanguage } from '../i18n/index.js';

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  return (
    <label className="language-switch">
      <span className="sr-only">{t('app.language')}</span>
      <select
        data-testid="language-switch"
        value={i18n.resolvedLanguage ?? 'en'}
        onChange={(event) => {
          void setLanguage(event.target.value as Language);
        }}
      >
        {LANGUAGES.map((language) => (
          <option key={language} value={language}>
            {LANGUAGE_NAMES[language]}
          </option>
        ))}
      </select>
    </label>
  );
}
