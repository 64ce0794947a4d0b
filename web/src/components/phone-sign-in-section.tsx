/**
 * Settings → "Sign in on your phone": mints a one-time link for this account
 * and shows it as a QR code and as text to copy, with when it stops working.
 * The QR code is SVG from the `qrcode` package, shown as a `data:` image (the
 * app's CSP allows `img-src data:`, and no markup is injected into the page).
 */
import QRCode from 'qrcode';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import type { SignInLinkReply } from '../../../src/wire/index.js';
import { mintSignInLink } from '../model/credentials-api.js';
import { dateTimeLabel } from '../model/relative-time.js';
import { CopyField } from './copy-field.js';

interface Shown {
  readonly link: SignInLinkReply;
  readonly qr: string;
}

export function PhoneSignInSection() {
  const { t, i18n } = useTranslation();
  const reason = useFailureReason();
  const { busy, run } = useBusyAction();
  const [shown, setShown] = useState<Shown | undefined>();
  const [error, setError] = useState<string | undefined>();

  async function mint(): Promise<void> {
    setError(undefined);
    const result = await mintSignInLink();
    if (result.ok) {
      const svg = await QRCode.toString(result.value.url, {
        type: 'svg',
        margin: 2,
        errorCorrectionLevel: 'M',
      });
      setShown({
        link: result.value,
        qr: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`,
      });
    } else {
      setShown(undefined);
      setError(reason(result));
    }
  }

  const expires = shown ? dateTimeLabel(shown.link.expires_at, i18n.resolvedLanguage) : '';

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
          <img
            className="qr-code"
            data-testid="phone-sign-in-qr"
            src={shown.qr}
            alt={t('access.phone.qrAlt')}
            width={220}
            height={220}
          />
          <p data-testid="phone-sign-in-expires">{t('access.phone.expires', { time: expires })}</p>
          <CopyField
            value={shown.link.url}
            label={t('access.phone.title')}
            testId="phone-sign-in-url"
          />
          <p className="muted">{t('access.phone.warning')}</p>
        </div>
      ) : null}
    </section>
  );
}
