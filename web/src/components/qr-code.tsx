/**
 * A link's QR code, in a box of its final size from the first render so that
 * nothing moves when it is drawn. It is drawn once the QR code library has
 * arrived (`model/qr-image.ts`); until then the box stays empty, and when the
 * library cannot be fetched the box says so in the page's language. Either
 * way the link shown beside it is there to copy meanwhile.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { qrImage } from '../model/qr-image.js';

export function QrCode(props: { text: string; alt: string; testId: string }) {
  const { t } = useTranslation();
  const [drawn, setDrawn] = useState<{ of: string; src: string | undefined }>();

  useEffect(() => {
    let current = true;
    void qrImage(props.text).then((src) => {
      if (current) setDrawn({ of: props.text, src });
    });
    return () => {
      current = false;
    };
  }, [props.text]);

  // A code drawn for an earlier link is not this link's: the box waits for this one's.
  if (drawn?.of !== props.text) return <div className="qr-code" aria-hidden="true" />;
  if (drawn.src === undefined) {
    return (
      <p className="qr-code qr-code-missing" data-testid={`${props.testId}-failed`}>
        {t('app.qrFailed')}
      </p>
    );
  }
  return (
    <img
      className="qr-code"
      data-testid={props.testId}
      src={drawn.src}
      alt={props.alt}
      width={220}
      height={220}
    />
  );
}
