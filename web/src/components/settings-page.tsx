/**
 * `/settings`: what connects this person to Clarion beyond this tab. Each
 * section owns its own data and errors, so one failing section (a channel
 * list that cannot load) leaves the others usable.
 */
import { useTranslation } from 'react-i18next';
import { AccessSettings } from './access-settings.js';
import { ConsentRulesSection } from './consent-rules-section.js';
import { DeviceNotifications } from './device-notifications.js';
import { NotificationSettings } from './notification-settings.js';

export function SettingsPage() {
  const { t } = useTranslation();
  return (
    <section className="settings" data-testid="settings" aria-labelledby="settings-title">
      <h1 id="settings-title" className="page-title">
        {t('settings.title')}
      </h1>
      <p className="muted">{t('settings.explain')}</p>
      <AccessSettings />
      <ConsentRulesSection />
      <DeviceNotifications />
      <NotificationSettings />
    </section>
  );
}
