/**
 * `/sign-in#<secret>`: where a sign-in link lands. The page takes the secret
 * out of the address bar at once (no history entry, bookmark or screenshot
 * keeps it) and redeems it (`model/sign-in.ts`). A fresh browser, or one
 * signed in as the link's person, goes straight to the inbox (or to the
 * session a link opened while signed out: `app/return-path.ts`); a browser
 * signed in as someone else asks by name first, since what is answered here
 * afterwards is recorded as the signed-in person's decision: Continue
 * switches, Stay keeps the current person and leaves the link unspent.
 * Pages are left with `location.replace`, so the app starts over as whoever
 * the cookie now says, and Back does not return here.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import type { ApiFailure } from '../model/api.js';
import { SIGN_IN_PAGE_PATH } from '../../../src/wire/constants.js';
import { takeReturnPath } from '../app/return-path.js';
import {
  redeemSignInLink,
  secretOfFragment,
  signInOutcome,
  type SignInOutcome,
} from '../model/sign-in.js';

const LINK_INVALID_PAGE = '/signed-out?reason=link_invalid';

type PageState =
  | { step: 'sending' }
  | { step: 'ask'; current: string; other: string }
  | { step: 'failed'; switchAccount: boolean; failure: ApiFailure | undefined };

function leave(path: string): void {
  window.location.replace(path);
}

export function SignInPage() {
  const { t } = useTranslation();
  const reason = useFailureReason();
  const [token] = useState(() => secretOfFragment(window.location.hash));
  const [state, setState] = useState<PageState>({ step: 'sending' });
  // StrictMode runs the effect twice; the link may be spent only by the first run's request.
  const started = useRef(false);

  const send = (switchAccount: boolean) => {
    setState({ step: 'sending' });
    void redeemSignInLink(token, switchAccount).then((result) => {
      follow(signInOutcome(result), switchAccount);
    });
  };

  const follow = (outcome: SignInOutcome, switchAccount: boolean) => {
    switch (outcome.kind) {
      case 'signed_in':
        // Back to the session a link opened while signed out, if it was a moment ago.
        leave(takeReturnPath() ?? '/');
        return;
      case 'link_invalid':
        leave(LINK_INVALID_PAGE);
        return;
      case 'ask':
        setState({ step: 'ask', current: outcome.current, other: outcome.other });
        return;
      case 'unreachable':
        setState({ step: 'failed', switchAccount, failure: undefined });
        return;
      case 'refused':
        setState({ step: 'failed', switchAccount, failure: outcome.failure });
        return;
    }
  };

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (window.location.hash !== '') {
      window.history.replaceState(null, '', SIGN_IN_PAGE_PATH);
    }
    // Reloaded after the secret left the address bar: nothing to redeem here.
    if (token === '') {
      leave('/');
      return;
    }
    send(false);
  }, []);

  if (state.step === 'sending') {
    return (
      <p className="muted" data-testid="sign-in-progress" role="status">
        {t('access.signIn.signingIn')}
      </p>
    );
  }
  if (state.step === 'failed') {
    return (
      <section className="sign-in" data-testid="sign-in-failed">
        <p role="alert">
          {state.failure === undefined
            ? t('access.signIn.unreachable')
            : t('access.signIn.refused', { error: reason(state.failure) })}
        </p>
        <button
          type="button"
          className="button"
          onClick={() => {
            send(state.switchAccount);
          }}
        >
          {t('access.signIn.retry')}
        </button>
      </section>
    );
  }
  const names = { current: state.current, other: state.other };
  return (
    <section
      className="sign-in"
      data-testid="sign-in-switch"
      role="alertdialog"
      aria-labelledby="sign-in-switch-title"
      aria-describedby="sign-in-switch-body"
    >
      <h1 id="sign-in-switch-title" className="page-title">
        {t('access.signIn.switchTitle')}
      </h1>
      <p id="sign-in-switch-body">{t('access.signIn.switchBody', names)}</p>
      <p className="muted">{t('access.signIn.switchNote', names)}</p>
      <div className="sign-in-choices">
        <button
          type="button"
          className="button"
          data-testid="sign-in-switch-continue"
          onClick={() => {
            send(true);
          }}
        >
          {t('access.signIn.continue')}
        </button>
        <button
          type="button"
          className="button button-primary"
          data-testid="sign-in-switch-stay"
          autoFocus
          onClick={() => {
            leave('/');
          }}
        >
          {t('access.signIn.stay', names)}
        </button>
      </div>
    </section>
  );
}
