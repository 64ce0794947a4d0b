/**
 * The page's language: in the header signed out, in the account menu signed in.
 * It shows the language the page is in: a choice whose words are still loading
 * is shown once they arrive, and one whose words could not be loaded never is.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { setLanguage } from '../i18n/index.js';
import { LANGUAGE_NAMES, LANGUAGES, type Language } from '../i18n/languages.js';

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const [failed, setFailed] = useState<Language>();
  return (
    <>
      <label className="language-switch">
        <span className="sr-only">{t('app.language')}</span>
        <select
          data-testid="language-switch"
          value={i18n.resolvedLanguage ?? 'en'}
          onChange={(event) => {
            const language = event.target.value as Language;
            setFailed(undefined);
            void setLanguage(language).then((switched) => {
              if (!switched) setFailed(language);
            });
          }}
        >
          {LANGUAGES.map((language) => (
            <option key={language} value={language}>
              {LANGUAGE_NAMES[language]}
            </option>
          ))}
        </select>
      </label>
      {failed ? (
        <span role="alert" className="error" data-testid="language-failed">
          {t('app.languageFailed', { language: LANGUAGE_NAMES[failed] })}
        </span>
      ) : null}
    </>
  );
}
