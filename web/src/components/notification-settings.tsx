/**
 * Settings › Notifications: this person's channels (ntfy, webhook, Slack;
 * Web Push devices appear here once added from their own section), a test
 * for each, and the reminder and privacy settings. Owns only its own data
 * and errors; a failure here leaves the other sections usable. Each failed
 * action says which action failed and why, next to where it was taken;
 * removing a channel asks first, in the page.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type SyntheticEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useDeliveryError } from '../hooks/use-delivery-error.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import { useRefocusAfterRemoval } from '../hooks/use-refocus-after-removal.js';
import {
  notificationsApi,
  type ChannelTestReply,
  type ChannelView,
  type NewChannelBody,
  type NotificationSettings as Settings,
} from '../model/notifications-api.js';
import { announceChannelsChanged, onChannelsChanged } from '../model/channel-changes.js';
import { channelRefusalOf } from '../model/channel-refusal.js';
import { fieldProblems } from '../model/tasks-api.js';
import { channelUrlProblem } from '../../../src/wire/channel-url.js';
import { MAX_CHANNELS_PER_USER, MAX_URL_CHARS } from '../../../src/wire/limits.js';
import { ConfirmStep } from './confirm-step.js';
import { UserText } from './user-text.js';

type AddKind = 'ntfy' | 'webhook' | 'slack';
/** A field of the add form an error can be about. */
type AddField = 'url' | 'name';
/** The add form's error, and the fields it is about (marked invalid and described by it). */
interface AddError {
  readonly text: string;
  readonly fields: readonly AddField[];
}
const ADD_ERROR_ID = 'notification-add-error';

/** The add form's field a server's issue path names, if any (a Web Push endpoint has none here). */
function addFieldOf(path: string): AddField | undefined {
  if (path === 'url') return 'url';
  if (path === 'name') return 'name';
  return undefined;
}
/** A test's reply and when it came (the page's clock, in ms). */
type TestedAt = ChannelTestReply & { at: number };
type Delivery = Pick<NonNullable<ChannelView['last_delivery']>, 'state' | 'error' | 'status'> & {
  // Absent on a reply from a server older than the codes.
  error_code?: NonNullable<ChannelView['last_delivery']>['error_code'] | undefined;
};

/**
 * What a channel's row says of its last delivery: the newer of the last notice
 * the server read out and a test sent from this page since, which the server
 * does not record, so the row follows what "Send a test" just reported.
 */
function latestDelivery(
  recorded: ChannelView['last_delivery'],
  tested: TestedAt | { notSent: string } | 'sending' | undefined,
): Delivery | null {
  if (tested === undefined || tested === 'sending' || 'notSent' in tested) return recorded;
  if (recorded && Date.parse(recorded.at) > tested.at) return recorded;
  return tested.delivered
    ? { state: 'delivered', error: null, status: tested.status }
    : {
        state: 'failed',
        error: tested.error,
        error_code: tested.error_code,
        status: tested.status,
      };
}
type Load = 'loading' | 'failed' | 'ready';

export function NotificationSettings() {
  const { t } = useTranslation();
  const api = useMemo(() => notificationsApi(), []);
  const [channels, setChannels] = useState<ChannelView[]>([]);
  const [settings, setSettings] = useState<Settings | null>(null);
  const [load, setLoad] = useState<Load>('loading');
  const [kind, setKind] = useState<AddKind>('ntfy');
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<AddError | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  // `notSent`: the test never reached the server (unlike a test the channel refused).
  const [tests, setTests] = useState<Record<string, TestedAt | { notSent: string } | 'sending'>>(
    {},
  );
  const [confirming, setConfirming] = useState<string | null>(null);
  const [removeErrors, setRemoveErrors] = useState<Record<string, string>>({});
  const [saveError, setSaveError] = useState<string | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  // A ref, not state: a second press can come before the first one's render.
  const testing = useRef(new Set<string>());
  // A second press while the first is on its way would add the channel and then be refused.
  const adding = useBusyAction();
  // One removal at a time across the list; its Remove holds the focus while it goes.
  const removing = useBusyAction();
  const urlRef = useRef<HTMLInputElement>(null);

  const why = useFailureReason();
  const undelivered = useDeliveryError();

  // Counts changes of the preferences made here: a read begun before one may answer after
  // its save did, with what the server held before it.
  const changes = useRef({ started: 0, saving: 0 });
  // Reads overlap (a frame, the page shown again, a change here) and may answer out of order:
  // only the newest one is shown, or a channel removed meanwhile would come back.
  const reads = useRef(0);
  const refresh = useCallback(async () => {
    reads.current += 1;
    const mine = reads.current;
    const changedBefore = changes.current.started;
    const [listed, current] = await Promise.all([api.channels(), api.settings()]);
    if (mine !== reads.current) return;
    if (!listed.ok || !current.ok) {
      setLoad('failed');
      return;
    }
    setChannels(listed.value.channels);
    if (changes.current.started === changedBefore && changes.current.saving === 0) {
      setSettings(current.value.settings);
    }
    setLoad('ready');
  }, [api]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // This device's Web Push section adds and deletes its channel: shown here at once.
  useEffect(() => onChannelsChanged(api, () => void refresh()), [api, refresh]);

  // Another window or device changes channels and preferences: the events socket says so.
  const { sync } = useServices();
  useEffect(() => sync.onNotificationsChanged(() => void refresh()), [sync, refresh]);

  // Each delivery changes a channel's state with no event, and a frame lost between replicas is
  // not said again: read again when the page is shown again too.
  useEffect(() => {
    const shown = () => {
      if (document.visibilityState === 'visible') void refresh();
    };
    document.addEventListener('visibilitychange', shown);
    window.addEventListener('focus', shown);
    return () => {
      document.removeEventListener('visibilitychange', shown);
      window.removeEventListener('focus', shown);
    };
  }, [refresh]);

  const setRefocus = useRefocusAfterRemoval(
    listRef,
    '[data-testid="notification-channel"]',
    urlRef,
    channels,
  );

  async function add(event: SyntheticEvent) {
    event.preventDefault();
    setError(null);
    setSecret(null);
    // What the server would refuse in English is said here in the page's language, unsent.
    const problem = channelUrlProblem(kind, url);
    if (problem !== undefined) {
      setError({
        text: t('notifications.addFailed', {
          error: t(`notifications.urlProblem.${problem}`, { max: MAX_URL_CHARS }),
        }),
        fields: ['url'],
      });
      return;
    }
    const body: NewChannelBody = {
      kind,
      url: url.trim(),
      ...(name.trim() ? { name: name.trim() } : {}),
    };
    const created = await adding.run(() => api.addChannel(body));
    if (created === undefined) return;
    if (!created.ok) {
      const refusal = channelRefusalOf(created);
      if (refusal !== undefined) {
        setError({
          text: t('notifications.addFailed', {
            error: t(`notifications.addRefused.${refusal}`, { max: MAX_CHANNELS_PER_USER }),
          }),
          // The limit is no field's fault; every other refusal is the target's.
          fields: refusal === 'channel_limit' ? [] : ['url'],
        });
        return;
      }
      // A 400 says which field is wrong and why (a password in the URL, an ntfy URL without a topic).
      const byField = Object.entries(fieldProblems(created));
      const problems = byField.map(([field, message]) =>
        field === '' ? message : `${field}: ${message}`,
      );
      setError({
        text: t('notifications.addFailed', { error: [why(created), ...problems].join(' — ') }),
        fields: byField.flatMap(([field]) => addFieldOf(field) ?? []),
      });
      return;
    }
    if (created.value.secret) setSecret(created.value.secret);
    setUrl('');
    setName('');
    announceChannelsChanged(api);
    await refresh();
  }

  /** What ties a field to the error about it: read with the field, not only announced once. */
  function errorProps(field: AddField) {
    const about = error?.fields.includes(field) === true;
    return {
      'aria-invalid': about,
      'aria-describedby': about ? ADD_ERROR_ID : undefined,
      'aria-errormessage': about ? ADD_ERROR_ID : undefined,
    };
  }

  async function remove(id: string) {
    const index = channels.findIndex((channel) => channel.id === id);
    setConfirming(null);
    setRemoveErrors(({ [id]: _, ...others }) => others);
    const removed = await api.deleteChannel(id);
    if (!removed.ok) {
      setRemoveErrors((shown) => ({
        ...shown,
        [id]: t('notifications.removeFailed', { error: why(removed) }),
      }));
      // Unreachable: nothing changed, and a reload would only fail too.
      if (removed.kind === 'network') {
        setRefocus({ index, stayed: true });
        return;
      }
    } else {
      announceChannelsChanged(api);
    }
    await refresh();
    setRefocus({ index, stayed: !removed.ok });
  }

  async function test(id: string) {
    // One test at a time per channel: a second press would send the receiver a second notice.
    if (testing.current.has(id)) return;
    testing.current.add(id);
    setTests((shown) => ({ ...shown, [id]: 'sending' }));
    const result = await api.testChannel(id);
    testing.current.delete(id);
    setTests((shown) => ({
      ...shown,
      [id]: result.ok ? { ...result.value, at: Date.now() } : { notSent: why(result) },
    }));
  }

  // Shown at once (a controlled checkbox would otherwise spring back until the server
  // answers); the server's reply, or the previous value on failure, is what stays. A failure
  // undoes only its own fields: a later change may have been saved meanwhile, and putting the
  // whole page back would show, say, answer links off while notices carry them.
  async function change(next: Partial<Settings>) {
    const before = settings;
    setSaveError(null);
    if (before) setSettings({ ...before, ...next });
    changes.current.started += 1;
    changes.current.saving += 1;
    const saved = await api.updateSettings(next);
    changes.current.saving -= 1;
    if (saved.ok) {
      setSettings(saved.value.settings);
    } else {
      if (before) {
        const undone = Object.fromEntries(
          Object.keys(next).map((key) => [key, before[key as keyof Settings]]),
        ) as Partial<Settings>;
        setSettings((shown) => (shown ? { ...shown, ...undone } : before));
      }
      setSaveError(t('notifications.saveFailed', { error: why(saved) }));
    }
  }

  return (
    <section
      className="settings-section"
      data-testid="notification-settings"
      aria-labelledby="notifications-title"
      aria-busy={load === 'loading'}
    >
      <h2 id="notifications-title" className="section-title">
        {t('notifications.title')}
      </h2>
      <p className="muted">{t('notifications.explain')}</p>
      {load === 'failed' ? (
        <p role="alert">
          {t('notifications.failed')}{' '}
          <button type="button" className="button" onClick={() => void refresh()}>
            {t('notifications.retry')}
          </button>
        </p>
      ) : null}
      {load === 'ready' && channels.length === 0 ? (
        <p className="muted" data-testid="notification-channels-empty">
          {t('notifications.empty')}
        </p>
      ) : null}
      <ul className="notification-channels" data-testid="notification-channels" ref={listRef}>
        {channels.map((channel) => {
          const tested = tests[channel.id];
          const delivery = latestDelivery(channel.last_delivery, tested);
          return (
            <li key={channel.id} data-testid="notification-channel">
              <strong>
                <UserText text={channel.name} />
              </strong>{' '}
              <span className="muted">
                {t(`notifications.kind.${channel.kind}`)} · {channel.target}
              </span>{' '}
              <span className="muted" data-testid="notification-channel-state">
                {delivery
                  ? t(`notifications.state.${delivery.state}`)
                  : t('notifications.state.none')}
                {delivery && delivery.state !== 'delivered' && undelivered(delivery)
                  ? ` (${undelivered(delivery)})`
                  : ''}
              </span>{' '}
              <button
                type="button"
                className="button"
                aria-label={t('notifications.testLabel', { name: channel.name })}
                aria-disabled={tested === 'sending'}
                onClick={() => void test(channel.id)}
              >
                {t('notifications.test')}
              </button>{' '}
              <button
                type="button"
                className="button"
                aria-label={t('notifications.removeLabel', { name: channel.name })}
                aria-expanded={confirming === channel.id}
                aria-disabled={removing.busy}
                onClick={() => {
                  if (!removing.busy) setConfirming(channel.id);
                }}
              >
                {t('notifications.remove')}
              </button>
              {tested ? (
                <span role="status" data-testid="notification-test-result">
                  {' '}
                  {tested === 'sending'
                    ? t('notifications.testSending')
                    : 'notSent' in tested
                      ? t('notifications.testNotSent', { error: tested.notSent })
                      : tested.delivered
                        ? t('notifications.testDelivered')
                        : t('notifications.testFailed', { error: undelivered(tested) })}
                </span>
              ) : null}
              {confirming === channel.id ? (
                <ConfirmStep
                  testId="notification-remove-confirm"
                  className="confirm-step settings-confirm"
                  keep={t('settings.keep')}
                  prompt={t(
                    channel.kind === 'webhook'
                      ? 'notifications.removeConfirmWebhook'
                      : 'notifications.removeConfirm',
                    { name: channel.name },
                  )}
                  yes={t('notifications.removeYes')}
                  backOnConfirm
                  onConfirm={() => void removing.run(() => remove(channel.id))}
                  onKeep={() => {
                    setConfirming(null);
                  }}
                />
              ) : null}
              {removeErrors[channel.id] ? (
                <p role="alert" data-testid="notification-remove-error">
                  {removeErrors[channel.id]}
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>

      <form className="notification-add" onSubmit={(event) => void add(event)}>
        <h3 className="subsection-title">{t('notifications.add')}</h3>
        <label>
          {t('notifications.kindLabel')}{' '}
          <select
            value={kind}
            onChange={(event) => {
              setKind(event.target.value as AddKind);
            }}
          >
            <option value="ntfy">{t('notifications.kind.ntfy')}</option>
            <option value="webhook">{t('notifications.kind.webhook')}</option>
            <option value="slack">{t('notifications.kind.slack')}</option>
          </select>
        </label>{' '}
        <label>
          {t(`notifications.urlLabel.${kind}`)}{' '}
          <input
            ref={urlRef}
            type="url"
            required
            value={url}
            onChange={(event) => {
              setUrl(event.target.value);
            }}
            {...errorProps('url')}
            data-testid="notification-url"
          />
        </label>{' '}
        <label>
          {t('notifications.nameLabel')}{' '}
          <input
            value={name}
            onChange={(event) => {
              setName(event.target.value);
            }}
            {...errorProps('name')}
          />
        </label>{' '}
        <button type="submit" className="button button-primary" aria-disabled={adding.busy}>
          {adding.busy ? t('notifications.adding') : t('notifications.addButton')}
        </button>
        {error ? (
          <p id={ADD_ERROR_ID} role="alert">
            {error.text}
          </p>
        ) : null}
        {secret ? (
          <p role="status" data-testid="notification-secret">
            {t('notifications.secretOnce')} <code>{secret}</code>
          </p>
        ) : null}
      </form>

      {settings ? (
        <fieldset className="notification-preferences">
          <legend>{t('notifications.preferences')}</legend>
          <label>
            {t('notifications.reminder')}{' '}
            <select
              value={settings.reminder_delay_s}
              onChange={(event) => void change({ reminder_delay_s: Number(event.target.value) })}
              data-testid="notification-reminder"
            >
              {[0, 300, 600, 1800, 3600].map((seconds) => (
                <option key={seconds} value={seconds}>
                  {seconds === 0
                    ? t('notifications.reminderOff')
                    : t('notifications.reminderMinutes', { count: seconds / 60 })}
                </option>
              ))}
              {[0, 300, 600, 1800, 3600].includes(settings.reminder_delay_s) ? null : (
                <option value={settings.reminder_delay_s}>
                  {t('notifications.reminderMinutes', {
                    count: Math.round(settings.reminder_delay_s / 60),
                  })}
                </option>
              )}
            </select>
          </label>
          <label>
            <input
              type="checkbox"
              checked={settings.include_question}
              onChange={(event) => void change({ include_question: event.target.checked })}
              data-testid="notification-include-question"
            />{' '}
            {t('notifications.includeQuestion')}
          </label>
          <label>
            <input
              type="checkbox"
              checked={settings.answer_links}
              onChange={(event) => void change({ answer_links: event.target.checked })}
              aria-describedby="notification-answer-links-hint"
              data-testid="notification-answer-links"
            />{' '}
            {t('notifications.answerLinks')}
          </label>
          <p id="notification-answer-links-hint" className="muted">
            {t('notifications.answerLinksHint')}
          </p>
          {saveError ? (
            <p role="alert" data-testid="notification-save-error">
              {saveError}
            </p>
          ) : null}
        </fieldset>
      ) : null}
    </section>
  );
}
