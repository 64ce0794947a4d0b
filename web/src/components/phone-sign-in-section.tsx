/**
 * Settings → "Sign in on your phone": mints a one-time link for this account
 * and shows it as text to copy, with when it stops working, and as a QR code
 * (`QrCode`), drawn once the link is already there to copy.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import type { SignInLinkReply } from '../../../src/wire/index.js';
import { mintSignInLink } from '../model/credentials-api.js';
import { dateTimeLabel } from '../model/relative-time.js';
import { CopyField } from './copy-field.js';
import { QrCode } from './qr-code.js';

export function PhoneSignInSection() {
  const { t, i18n } = useTranslation();
  const reason = useFailureReason();
  const { busy, run } = useBusyAction();
  const [shown, setShown] = useState<SignInLinkReply | undefined>();
  const [error, setError] = useState<string | undefined>();

  async function mint(): Promise<void> {
    setError(undefined);
    const result = await mintSignInLink();
    if (result.ok) {
      setShown(result.value);
    } else {
      setShown(undefined);
      setError(reason(result));
    }
  }

  const expires = shown ? dateTimeLabel(shown.expires_at, i18n.resolvedLanguage) : '';

  return (
    <section className="settings-section" data-testid="phone-sign-in" aria-labelledby="phone-title">
      <h2 id="phone-title" className="section-title">
        {t('access.phone.title')}
      </h2>
      <p className="muted">{t('access.phone.explain')}</p>
      <button
        type="button"
        className="button button-primary"
        data-testid="phone-sign-in-mint"
        // Not `disabled`: that would drop the keyboard's focus on it to the page.
        aria-disabled={busy}
        onClick={() => void run(mint)}
      >
        {busy
          ? t('access.phone.minting')
          : shown
            ? t('access.phone.mintAgain')
            : t('access.phone.mint')}
      </button>
      {error !== undefined ? (
        <p className="error" role="alert">
          {t('access.phone.failed', { error })}
        </p>
      ) : null}
      {shown ? (
        <div className="phone-link">
          <QrCode text={shown.url} alt={t('access.phone.qrAlt')} testId="phone-sign-in-qr" />
          <p data-testid="phone-sign-in-expires">{t('access.phone.expires', { time: expires })}</p>
          <CopyField value={shown.url} label={t('access.phone.title')} testId="phone-sign-in-url" />
          <p className="muted">{t('access.phone.warning')}</p>
        </div>
      ) : null}
    </section>
  );
}
