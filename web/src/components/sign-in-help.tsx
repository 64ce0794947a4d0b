/**
 * The signed-out screen, and the page a sign-in link that no longer works
 * leads to (`/signed-out?reason=link_invalid`, where the server redirects an
 * unknown, used or expired link). It says how to get a new link: from a
 * device already signed in, or with `clarion sign-in-link` on the server.
 * `ended`: the page was signed in until a moment ago (Sign out, here or in
 * another tab, or an administrator ended it), so it says that first.
 * `now`: the browser has since been signed in as another person (in another
 * tab): no new link is needed, only a reload, which the person chooses.
 * `signedInAs`: a used link opened again in a browser still signed in (the
 * same mail link twice) says so, with the way back to the inbox first.
 */
import { useTranslation } from 'react-i18next';
import { navigate } from '../app/router.js';

// Without `--user` the command mints the first admin's link: everyone else needs their name.
export const CLI_COMMAND = 'clarion sign-in-link --user NAME';

export function SignInHelp(props: {
  linkInvalid: boolean;
  signedInAs?: string | undefined;
  ended?: boolean;
  now?: string | undefined;
}) {
  const { t } = useTranslation();
  if (props.now !== undefined) return <SignedInElsewhere name={props.now} />;
  const already = props.linkInvalid && props.signedInAs !== undefined;
  const title = already
    ? t('access.signedOut.alreadySignedInTitle', { name: props.signedInAs })
    : props.linkInvalid
      ? t('access.signedOut.linkInvalidTitle')
      : props.ended
        ? t('access.signedOut.endedTitle')
        : t('app.signInTitle');
  const body = already
    ? t('access.signedOut.alreadySignedInBody')
    : props.linkInvalid
      ? t('access.signedOut.linkInvalidBody')
      : props.ended
        ? t('access.signedOut.endedBody')
        : t('app.signInBody');
  const toInbox =
    props.signedInAs === undefined ? null : (
      <a
        href="/"
        className="button"
        data-testid="sign-in-help-continue"
        onClick={(event) => {
          event.preventDefault();
          navigate('/');
        }}
      >
        {t('access.signedOut.continue')}
      </a>
    );
  return (
    <section
      className="sign-in"
      data-testid={props.linkInvalid ? 'link-invalid' : 'sign-in'}
      data-ended={props.ended === true ? 'true' : undefined}
      aria-labelledby="sign-in-title"
    >
      <h1 id="sign-in-title" className="page-title">
        {title}
      </h1>
      <p>{body}</p>
      {already ? toInbox : null}
      <h2 className="section-title">{t('access.signedOut.howTitle')}</h2>
      <ul className="sign-in-ways">
        <li>{t('access.signedOut.fromDevice')}</li>
        <li>
          {t('access.signedOut.fromCli')} <code>{CLI_COMMAND}</code>
        </li>
        <li>{t('access.signedOut.fromAdmin')}</li>
      </ul>
      {already ? null : toInbox}
    </section>
  );
}

/** The page stopped because another tab switched the browser's person; a reload continues as them. */
function SignedInElsewhere(props: { name: string }) {
  const { t } = useTranslation();
  return (
    <section className="sign-in" data-testid="signed-in-elsewhere" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title" className="page-title">
        {t('access.signedOut.switchedTitle', { name: props.name })}
      </h1>
      <p>{t('access.signedOut.switchedBody', { name: props.name })}</p>
      <button
        type="button"
        className="button button-primary"
        onClick={() => {
          window.location.reload();
        }}
      >
        {t('access.signedOut.reload')}
      </button>
    </section>
  );
}
