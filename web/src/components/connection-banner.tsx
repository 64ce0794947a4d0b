/**
 * A banner, not a grey word in the header, while the live connection is
 * down: what the page shows may be stale until it returns. When the server
 * closed it because the person is in no workspace any more, reconnecting
 * would only hear nothing, so the banner says why and waits for Try again.
 */
import { useTranslation } from 'react-i18next';
import { useModelState, useServices } from '../app/services.js';

export function ConnectionBanner() {
  const { t } = useTranslation();
  const { sync } = useServices();
  const { connection } = useModelState();
  if (connection === 'no_workspace') {
    return (
      <div
        className="banner banner-warn connection-banner"
        role="status"
        data-testid="no-workspace-banner"
      >
        <p>{t('app.noWorkspaceBanner')}</p>
        <button
          type="button"
          className="button"
          onClick={() => {
            sync.start();
          }}
        >
          {t('app.tryAgain')}
        </button>
      </div>
    );
  }
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
