/**
 * Settings → "Notifications on this device": Web Push for this browser. It
 * says truthfully what stands in the way (no HTTPS, no support, blocked) and
 * otherwise offers one button; the subscription becomes a `web_push`
 * channel on the server, listed with the person's other channels.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  currentEnvironment,
  existingSubscription,
  turnOffPush,
  turnOnPush,
} from '../model/push-device.js';
import { pushSupport, type PushSupport } from '../model/push-support.js';

type DeviceState =
  | { name: 'checking' }
  | { name: Exclude<PushSupport, 'ready'> }
  | { name: 'off'; problem?: 'dismissed' | 'unavailable' | 'failed'; error?: string }
  | { name: 'working' }
  | { name: 'on' };

async function readState(): Promise<DeviceState> {
  const support = pushSupport(currentEnvironment());
  if (support !== 'ready') return { name: support };
  const subscription = await existingSubscription().catch(() => null);
  return subscription !== null && Notification.permission === 'granted'
    ? { name: 'on' }
    : { name: 'off' };
}

export function DeviceNotifications() {
  const { t } = useTranslation();
  const [state, setState] = useState<DeviceState>({ name: 'checking' });

  useEffect(() => {
    let live = true;
    void readState().then((next) => {
      if (live) setState(next);
    });
    return () => {
      live = false;
    };
  }, []);

  async function turnOn() {
    setState({ name: 'working' });
    const result = await turnOnPush();
    if (result.ok) setState({ name: 'on' });
    else if (result.reason === 'blocked') setState({ name: 'blocked' });
    else
      setState({
        name: 'off',
        problem: result.reason,
        ...(result.error ? { error: result.error } : {}),
      });
  }

  async function turnOff() {
    setState({ name: 'working' });
    await turnOffPush().catch(() => undefined);
    setState(await readState());
  }

  return (
    <section
      className="settings-section"
      data-testid="device-notifications"
      data-state={state.name}
      aria-labelledby="device-notifications-title"
    >
      <h2 id="device-notifications-title" className="section-title">
        {t('devicePush.title')}
      </h2>
      {state.name === 'insecure' ? <p className="muted">{t('devicePush.insecure')}</p> : null}
      {state.name === 'unsupported' ? <p className="muted">{t('devicePush.unsupported')}</p> : null}
      {state.name === 'blocked' ? <p className="muted">{t('devicePush.blocked')}</p> : null}
      {state.name === 'on' ? (
        <>
          <p>{t('devicePush.on')}</p>
          <button type="button" className="button" onClick={() => void turnOff()}>
            {t('devicePush.turnOff')}
          </button>
        </>
      ) : null}
      {state.name === 'off' || state.name === 'working' ? (
        <>
          <p className="muted">{t('devicePush.explain')}</p>
          <button
            type="button"
            className="button button-primary"
            disabled={state.name === 'working'}
            onClick={() => void turnOn()}
          >
            {state.name === 'working' ? t('devicePush.working') : t('devicePush.turnOn')}
          </button>
        </>
      ) : null}
      {state.name === 'off' && state.problem !== undefined ? (
        <p role="alert" className="error">
          {t(`devicePush.problem.${state.problem}`, { error: state.error ?? '' })}
        </p>
      ) : null}
    </section>
  );
}
