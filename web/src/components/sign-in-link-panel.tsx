/**
 * A one-time sign-in link made for someone else: a QR code to scan (`QrCode`,
 * as Settings shows the person's own link), the link as text to copy, and
 * when it stops working.
 */
import { useTranslation } from 'react-i18next';
import { dateTimeLabel } from '../model/relative-time.js';
import { CopyField } from './copy-field.js';
import { QrCode } from './qr-code.js';

export function SignInLinkPanel(props: {
  url: string;
  expiresAt: string;
  /** Whom the link signs in: named in the warning and the copy field's label. */
  name: string;
  testId: string;
}) {
  const { t, i18n } = useTranslation();
  const expires = dateTimeLabel(props.expiresAt, i18n.resolvedLanguage);
  return (
    <div className="phone-link" data-testid={props.testId}>
      <QrCode
        text={props.url}
        alt={t('people.link.qrAlt', { name: props.name })}
        testId={`${props.testId}-qr`}
      />
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
