/**
 * The shell: sign-in check, header with the page links, connection state
 * and the signed-in person's account menu (the language switch alone when
 * signed out), routes. Once the account goes signed out (here, in another
 * tab, or by an administrator) sync stops and every route but an answer
 * link's and a sign-in link's shows the signed-out screen.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { navigate, useRoute } from '../app/router.js';
import { rememberReturnPath } from '../app/return-path.js';
import { useAccount, useModelState, useServices } from '../app/services.js';
import { renewPushDevice } from '../model/push-device.js';
import { useResyncOnReturn } from '../hooks/use-resync-on-return.js';
import { useStickyHeaderInset } from '../hooks/use-sticky-header-inset.js';
import { AccountMenu } from './account-menu.js';
import { ArrivalAnnouncer } from './arrival-announcer.js';
import { ConnectionBanner } from './connection-banner.js';
import { AnswerPage } from './answer-page.js';
import { DecisionLog } from './decision-log.js';
import { Inbox } from './inbox.js';
import { LanguageSwitch } from './language-switch.js';
import { NewTaskForm } from './new-task-form.js';
import { PeoplePage } from './people-page.js';
import { SessionView } from './session-view.js';
import { SettingsPage } from './settings-page.js';
import { WaitingCountTitle } from './waiting-count-title.js';
import { SignInHelp } from './sign-in-help.js';
import { SignInPage } from './sign-in-page.js';

/** The server sends a sign-in link that no longer works to `/signed-out?reason=link_invalid`. */
function linkInvalid(): boolean {
  return new URLSearchParams(window.location.search).get('reason') === 'link_invalid';
}

export function App() {
  const { t } = useTranslation();
  const { account, api, sync } = useServices();
  const accountState = useAccount();
  const auth = accountState.status;
  const route = useRoute();
  const header = useRef<HTMLElement>(null);
  useStickyHeaderInset(header);

  // A sign-in link's page asks nobody: it leaves for a page of its own once the link is
  // redeemed, which checks then, and a fresh browser's check before that could only hear a 401.
  const checkSignIn = route.name !== 'signIn';
  useEffect(() => {
    if (!checkSignIn) return;
    void api.me().then((result) => {
      if (result.ok) account.signedIn(result.value);
      else account.signedOut();
    });
  }, [account, api, checkSignIn]);

  useEffect(() => {
    if (auth !== 'signed_in') return;
    sync.start();
    return () => {
      sync.stop();
    };
  }, [auth, sync]);
  useResyncOnReturn(sync, auth === 'signed_in');

  // A replaced push subscription the worker could not hand over is handed over on any page.
  useEffect(() => {
    if (auth === 'signed_in') void renewPushDevice();
  }, [auth]);

  // A notification's link to a session, opened signed out: the sign-in that follows leads back.
  const signedOutAt = auth === 'signed_out' && route.name === 'session' ? route.sessionId : '';
  useEffect(() => {
    if (signedOutAt !== '') rememberReturnPath(window.location.pathname);
  }, [signedOutAt]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="app-header" ref={header}>
        <a
          href="/"
          className="brand"
          onClick={(event) => {
            event.preventDefault();
            navigate('/');
          }}
        >
          {t('app.title')}
        </a>
        {auth === 'signed_in' ? (
          <>
            <HeaderLink to="tasks/new" current={route.name} label={t('newTask.headerLink')} />
            <HeaderLink to="decisions" current={route.name} label={t('decisions.title')} />
            <HeaderLink to="people" current={route.name} label={t('people.title')} />
            <HeaderLink to="settings" current={route.name} label={t('settings.title')} />
          </>
        ) : null}
        {auth === 'signed_in' ? <ConnectionBadge /> : null}
        {auth === 'signed_in' ? <WaitingCountTitle /> : null}
        {/* Signed in, the language is the account menu's: on a phone it waits behind its button. */}
        {accountState.status === 'signed_in' ? (
          <AccountMenu me={accountState.me} />
        ) : (
          <LanguageSwitch />
        )}
      </header>
      <main id="main" className="app-main">
        {auth === 'signed_in' ? <ConnectionBanner /> : null}
        {auth === 'signed_in' ? <ArrivalAnnouncer /> : null}
        {/* An answer link's secret is its credential: the page works signed in or not. */}
        {route.name === 'answer' ? <AnswerPage /> : null}
        {/* A sign-in link's page redeems its secret whoever is signed in, and asks before a switch. */}
        {route.name === 'signIn' ? <SignInPage /> : null}
        {auth === 'checking' && route.name !== 'answer' && route.name !== 'signIn' ? (
          <p className="muted">{t('app.loading')}</p>
        ) : null}
        {route.name === 'signedOut' && auth !== 'checking' ? (
          <SignInHelp
            linkInvalid={linkInvalid()}
            signedInAs={accountState.status === 'signed_in' ? accountState.me.user.name : undefined}
          />
        ) : null}
        {accountState.status === 'signed_out' &&
        route.name !== 'signedOut' &&
        route.name !== 'answer' &&
        route.name !== 'signIn' ? (
          <SignInHelp linkInvalid={false} ended={accountState.ended} now={accountState.now} />
        ) : null}
        {auth === 'signed_in' && route.name === 'inbox' ? <Inbox /> : null}
        {auth === 'signed_in' && route.name === 'decisions' ? <DecisionLog /> : null}
        {auth === 'signed_in' && route.name === 'settings' ? <SettingsPage /> : null}
        {auth === 'signed_in' && route.name === 'people' ? <PeoplePage /> : null}
        {auth === 'signed_in' && route.name === 'newTask' ? <NewTaskForm /> : null}
        {auth === 'signed_in' && route.name === 'session' ? (
          <SessionView key={route.sessionId} sessionId={route.sessionId} />
        ) : null}
      </main>
    </div>
  );
}

/** A page link in the header; `to` is both the route's name and its path. */
function HeaderLink(props: {
  to: 'decisions' | 'people' | 'settings' | 'tasks/new';
  current: string;
  label: string;
}) {
  const path = `/${props.to}`;
  const name = props.to === 'tasks/new' ? 'newTask' : props.to;
  return (
    <a
      href={path}
      className="header-link"
      data-testid={`${name}-link`}
      aria-current={props.current === name ? 'page' : undefined}
      onClick={(event) => {
        event.preventDefault();
        navigate(path);
      }}
    >
      {props.label}
    </a>
  );
}

function ConnectionBadge() {
  const { t } = useTranslation();
  const { connection } = useModelState();
  const label = {
    live: t('app.live'),
    connecting: t('app.connecting'),
    offline: t('app.offline'),
    no_workspace: t('app.noWorkspace'),
  }[connection];
  return (
    <span className="connection" data-testid="connection" data-state={connection} role="status">
      {label}
    </span>
  );
}
