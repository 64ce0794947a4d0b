/**
 * A one-time sign-in link made for someone else: a QR code to scan, the link
 * as text to copy, and when it stops working. The QR code is SVG from the
 * `qrcode` package shown as a `data:` image, as Settings shows the person's
 * own link (the app's CSP allows `img-src data:`; no markup is injected).
 */
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dateTimeLabel } from '../model/relative-time.js';
import { CopyField } from './copy-field.js';

export function SignInLinkPanel(props: {
  url: string;
  expiresAt: string;
  /** Whom the link signs in: named in the warning and the copy field's label. */
  name: string;
  testId: string;
}) {
  const { t, i18n } = useTranslation();
  const [qr, setQr] = useState<{ of: string; src: string }>();

  useEffect(() => {
    let current = true;
    void QRCode.toString(props.url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }).then(
      (svg) => {
        if (current)
          setQr({
            of: props.url,
            src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`,
          });
      },
    );
    return () => {
      current = false;
    };
  }, [props.url]);

  const expires = dateTimeLabel(props.expiresAt, i18n.resolvedLanguage);
  return (
    <div className="phone-link" data-testid={props.testId}>
      {qr?.of === props.url ? (
        <img
          className="qr-code"
          data-testid={`${props.testId}-qr`}
          src={qr.src}
          alt={t('people.link.qrAlt', { name: props.name })}
          width={220}
          height={220}
        />
      ) : null}
      <p data-testid={`${props.testId}-expires`}>{t('people.link.expires', { time: expires })}</p>
      <CopyField
        value={props.url}
        label={t('people.link.label', { name: props.name })}
        testId={`${props.testId}-url`}
      />
      <p className="muted">{t('people.link.warning', { name: props.name })}</p>
    </div>
  );
}
