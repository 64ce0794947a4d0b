/**
 * The signed-out screen, and the page a sign-in link that no longer works
 * leads to (`/signed-out?reason=link_invalid`, where the server redirects an
 * unknown, used or expired link). It says how to get a new link: from a
 * device already signed in, or with `clarion sign-in-link` on the server.
 * `ended`: the page was signed in until a moment ago (Sign out, here or in
 * another tab, or an administrator ended it), so it says that first.
 */
import { useTranslation } from 'react-i18next';
import { navigate } from '../app/router.js';

export const CLI_COMMAND = 'clarion sign-in-link';

export function SignInHelp(props: { linkInvalid: boolean; signedIn: boolean; ended?: boolean }) {
  const { t } = useTranslation();
  const title = props.linkInvalid
    ? t('access.signedOut.linkInvalidTitle')
    : props.ended
      ? t('access.signedOut.endedTitle')
      : t('app.signInTitle');
  const body = props.linkInvalid
    ? t('access.signedOut.linkInvalidBody')
    : props.ended
      ? t('access.signedOut.endedBody')
      : t('app.signInBody');
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
      <h2 className="section-title">{t('access.signedOut.howTitle')}</h2>
      <ul className="sign-in-ways">
        <li>{t('access.signedOut.fromDevice')}</li>
        <li>
          {t('access.signedOut.fromCli')} <code>{CLI_COMMAND}</code>
        </li>
        <li>{t('access.signedOut.fromAdmin')}</li>
      </ul>
      {props.signedIn ? (
        <a
          href="/"
          className="button"
          onClick={(event) => {
            event.preventDefault();
            navigate('/');
          }}
        >
          {t('access.signedOut.continue')}
        </a>
      ) : null}
    </section>
  );
}
