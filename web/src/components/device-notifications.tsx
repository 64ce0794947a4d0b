/**
 * Settings → "Notifications on this device": Web Push for this browser. It
 * says truthfully what stands in the way (no HTTPS, no support, blocked) and
 * otherwise offers one button; the subscription becomes a `web_push`
 * channel on the server, listed with the person's other channels. "On" is
 * read from both: a subscription whose channel was deleted reads as off.
 * Every failure is shown in the section's alert, never dropped.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import { announceChannelsChanged, onChannelsChanged } from '../model/channel-changes.js';
import type { BrowserPushFault } from '../model/push-fault.js';
import {
  currentEnvironment,
  readPushDevice,
  type PushFault,
  turnOffPush,
  turnOnPush,
} from '../model/push-device.js';
import { pushSupport, type PushSupport } from '../model/push-support.js';

/** `unchecked`: the channel list could not be read; `notOff`: turning off did not finish. */
type Problem = 'dismissed' | 'unavailable' | 'failed' | 'unchecked' | 'notOff';

type DeviceState =
  | { name: 'checking' }
  | { name: Exclude<PushSupport, 'ready'> }
  | { name: 'off' | 'on'; problem?: Problem; error?: PushFault }
  | { name: 'working'; turning: 'on' | 'off' };

/** Not knowing whether it is on reads as off: "turn on" replaces whatever is there. */
async function readState(): Promise<DeviceState> {
  const support = pushSupport(currentEnvironment());
  if (support !== 'ready') return { name: support };
  const reading = await readPushDevice();
  if (reading.ok) return { name: reading.on ? 'on' : 'off' };
  if (reading.reason === 'unavailable') return { name: 'off', problem: 'unavailable' };
  return { name: 'off', problem: 'unchecked', ...(reading.error ? { error: reading.error } : {}) };
}

/** A step's failure as a clause in the page's language: the server's reply or the browser's refusal. */
function usePushFaultReason(): (fault: PushFault) => string {
  const { t } = useTranslation();
  const reason = useFailureReason();
  return useCallback(
    (fault: PushFault) => (fault.kind === 'browser' ? browserReason(t, fault) : reason(fault)),
    [t, reason],
  );
}

function browserReason(t: ReturnType<typeof useTranslation>['t'], fault: BrowserPushFault): string {
  switch (fault.reason) {
    case 'timeout':
      return t(`devicePush.fault.timeout.${fault.step}`);
    case 'other':
      return t('devicePush.fault.other', { name: fault.name });
    default:
      return t(`devicePush.fault.${fault.reason}`);
  }
}

export function DeviceNotifications() {
  const { t } = useTranslation();
  const reason = usePushFaultReason();
  const [state, setState] = useState<DeviceState>({ name: 'checking' });
  // Ours, announced to the channel list; and whether a turn on or off is under way.
  const self = useRef({ working: false });
  const { sync } = useServices();

  useEffect(() => {
    let live = true;
    // One read at a time, a request meanwhile making one more after it: a read may move this
    // device's channel to a subscription its browser replaced, and the move itself brings a
    // `notifications_changed`; two reads at once would both ask the server to move it.
    const pending = { reading: false, again: false };
    // A call, so the loop sees what a frame set during the read's await.
    const wantedAgain = () => pending.again;
    const read = async () => {
      pending.reading = true;
      try {
        do {
          pending.again = false;
          const next = await readState();
          if (live && !self.current.working) setState(next);
        } while (wantedAgain() && live);
      } finally {
        pending.reading = false;
      }
    };
    void read();
    // Its channel removed from the list reads as off at once; a turn under way reads its own.
    const reread = () => {
      if (self.current.working) return;
      if (pending.reading) pending.again = true;
      else void read();
    };
    const stop = onChannelsChanged(self.current, reread);
    // Removed on another device, or by the server once the push service said it is gone: this
    // device gets nothing more, and must not go on saying it does.
    const unlisten = sync.onNotificationsChanged(reread);
    return () => {
      live = false;
      stop();
      unlisten();
    };
  }, [sync]);

  async function turnOn() {
    setState({ name: 'working', turning: 'on' });
    self.current.working = true;
    const result = await turnOnPush();
    self.current.working = false;
    // Even a failed turn may have deleted the channel of the subscription it replaced.
    announceChannelsChanged(self.current);
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
    setState({ name: 'working', turning: 'off' });
    self.current.working = true;
    const result = await turnOffPush();
    const next = await readState();
    self.current.working = false;
    announceChannelsChanged(self.current);
    if (result.ok || (next.name !== 'on' && next.name !== 'off')) setState(next);
    else setState({ name: next.name, problem: 'notOff', error: result.error });
  }

  function buttonLabel(shown: DeviceState): string {
    if (shown.name === 'on') return t('devicePush.turnOff');
    if (shown.name !== 'working') return t('devicePush.turnOn');
    return shown.turning === 'on' ? t('devicePush.working') : t('devicePush.turningOff');
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
      {state.name === 'on' ? <p>{t('devicePush.on')}</p> : null}
      {state.name === 'off' || state.name === 'working' ? (
        <p className="muted">{t('devicePush.explain')}</p>
      ) : null}
      {/* One button in every state, never disabled: a keyboard's focus stays on it as it turns. */}
      {state.name === 'on' || state.name === 'off' || state.name === 'working' ? (
        <button
          type="button"
          className={state.name === 'on' ? 'button' : 'button button-primary'}
          aria-disabled={state.name === 'working'}
          onClick={() => {
            if (state.name === 'on') void turnOff();
            else if (state.name === 'off') void turnOn();
          }}
        >
          {buttonLabel(state)}
        </button>
      ) : null}
      {(state.name === 'off' || state.name === 'on') && state.problem !== undefined ? (
        <p role="alert" className="error">
          {t(`devicePush.problem.${state.problem}`, {
            error: state.error === undefined ? '' : reason(state.error),
          })}
        </p>
      ) : null}
    </section>
  );
}
