/**
 * A banner, not a grey word in the header, while the live connection is
 * down: what the page shows may be stale until it returns.
 */
import { useTranslation } from 'react-i18next';
import { useModelState } from '../app/services.js';

export function ConnectionBanner() {
  const { t } = useTranslation();
  const { connection } = useModelState();
  if (connection !== 'offline') return null;
  return (
    <div
      className="banner banner-warn connection-banner"
      role="status"
      data-testid="offline-banner"
    >
      {t('app.offlineBanner')}
    </div>
  );
}
