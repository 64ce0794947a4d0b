/**
 * Who this page is signed in as, the page's language, and Sign out. The name
 * is shown so that a sign-in link of someone else's, opened in this browser,
 * cannot switch the account unnoticed. On a wide screen all of it sits in the
 * header's row; on a phone (`max-width: 640px`, in the CSS) it waits behind
 * one button that keeps the name in sight, so that the page links and the
 * connection state fit the header's two rows in every language.
 *
 * Sign out ends this browser's session on the server (which also closes its
 * events sockets, and takes this device's Web Push channel with it) and the
 * shell then shows the signed-out screen; a failure says so and leaves the
 * page signed in, its notifications as they were. Once signed out, the
 * browser's push subscription goes too: a phone handed on or shared must not
 * go on showing the person's items. That step is best effort and waits at
 * most `SIGN_OUT_PUSH_WAIT_MS`: a hung push service keeps no one waiting.
 */
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useDisclosure } from '../hooks/use-disclosure.js';
import type { Me } from '../model/api.js';
import { forgetPushAfterSignOut } from '../model/push-device.js';
import { LanguageSwitch } from './language-switch.js';
import { UserText } from './user-text.js';

export function AccountMenu(props: { me: Me }) {
  const { t } = useTranslation();
  const { account, api, sync } = useServices();
  const [status, setStatus] = useState<'idle' | 'signing_out' | 'failed'>('idle');
  const menu = useDisclosure();
  const panelId = useId();

  const signOut = async () => {
    if (status === 'signing_out') return;
    setStatus('signing_out');
    // The sign-out closes this page's events socket too: not taken for an end from elsewhere,
    // which would show the signed-out screen before this device's part of it is done.
    sync.stop();
    const result = await api.signOut();
    // A 401 means the session had already ended: signed out all the same.
    if (result.ok || (result.kind === 'http' && result.status === 401)) {
      await forgetPushAfterSignOut();
      account.signedOut();
      return;
    }
    sync.start();
    setStatus('failed');
  };

  return (
    <div
      ref={menu.root}
      className="account-menu"
      data-testid="account-menu"
      data-open={menu.open ? 'true' : undefined}
    >
      {/* Shown on a phone only (CSS): the name stays in sight, the rest waits behind it. */}
      <button
        ref={menu.button}
        type="button"
        className="button account-toggle"
        data-testid="account-toggle"
        aria-expanded={menu.open}
        aria-controls={panelId}
        onClick={menu.toggle}
      >
        <span className="sr-only">{t('app.signedInAs')} </span>
        <span className="account-toggle-name">
          <UserText text={props.me.user.name} />
        </span>
        <span className="account-toggle-mark" aria-hidden="true">
          ▾
        </span>
      </button>
      <div id={panelId} className="account-panel">
        <LanguageSwitch />
        <div className="account-who">
          <span className="account-name" data-testid="account-name">
            <span className="account-name-prefix">{t('app.signedInAs')} </span>
            <UserText text={props.me.user.name} />
          </span>
          <button
            type="button"
            className="button button-quiet account-sign-out"
            data-testid="sign-out"
            // Not `disabled`: that drops the keyboard focus to the page's body for the wait, and a
            // failure left it there.
            aria-disabled={status === 'signing_out' ? true : undefined}
            onClick={() => {
              void signOut();
            }}
          >
            {/* Up to SIGN_OUT_PUSH_WAIT_MS: the wait is said, not only shown greyed. */}
            {status === 'signing_out' ? t('app.signingOut') : t('app.signOut')}
          </button>
          {status === 'failed' ? (
            <span className="account-error" role="alert" data-testid="sign-out-failed">
              {t('app.signOutFailed')}
            </span>
          ) : null}
        </div>
      </div>
    </div>
  );
}
