/**
 * People → "Invite a teammate" (admins): creates the user, optionally adds
 * them to a workspace (any, for an admin: the People page lists every one;
 * a new user is in none, and sees no task until they are), and shows their
 * one-time sign-in link to hand over.
 * The user's first bearer token also comes back; the page never shows it:
 * the person makes their own tokens once signed in.
 */
import { useRef, useState, type SyntheticEvent } from 'react';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFocusOnOutcome } from '../hooks/use-focus-on-outcome.js';
import { useTranslation } from 'react-i18next';
import type { WorkspaceView } from '../../../src/wire/index.js';
import { MAX_ACCOUNT_NAME_CHARS } from '../../../src/wire/limits.js';
import { isBlankText } from '../../../src/wire/text.js';
import { putMember } from '../model/members-api.js';
import { inviteUser, type InvitedUser } from '../model/people-api.js';
import { refusalOf, type Refusal } from '../model/people.js';
import { RefusalNote, useRefusalText } from './refusal-note.js';
import { SignInLinkPanel } from './sign-in-link-panel.js';
import { showBidiControls } from '../model/bidi.js';

export function InviteForm(props: { workspaces: readonly WorkspaceView[]; onInvited: () => void }) {
  const { t } = useTranslation();
  const refusalText = useRefusalText();
  const [name, setName] = useState('');
  const [admin, setAdmin] = useState(false);
  const [workspaceId, setWorkspaceId] = useState<string>();
  const { busy, run } = useBusyAction();
  const [invited, setInvited] = useState<InvitedUser>();
  const [refusal, setRefusal] = useState<Refusal>();
  const [notAdded, setNotAdded] = useState<Refusal>();
  const doneRef = useRef<HTMLParagraphElement>(null);
  // Invited from the form: the keyboard's focus moves to the new link's line.
  const setInvitedFrom = useFocusOnOutcome(doneRef);
  // The first workspace until the admin picks another (or none).
  const chosen = workspaceId ?? props.workspaces[0]?.id ?? '';
  // Nothing in it shows (spaces, zero-width characters): no name, as the server would say.
  const blank = isBlankText(name);

  async function invite(event: SyntheticEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    if (blank) return;
    const form = event.currentTarget;
    await run(async () => {
      setRefusal(undefined);
      setNotAdded(undefined);
      const result = await inviteUser({ name: name.trim(), is_admin: admin });
      if (result.ok) {
        setInvited(result.value);
        setName('');
        setAdmin(false);
        if (chosen !== '') {
          const added = await putMember(chosen, { user_id: result.value.user.id, role: 'member' });
          if (!added.ok) setNotAdded(refusalOf(added));
        }
        props.onInvited();
        setInvitedFrom(form);
      } else {
        setRefusal(refusalOf(result));
      }
    });
  }

  return (
    <section className="settings-section" data-testid="invite" aria-labelledby="invite-title">
      <h2 id="invite-title" className="section-title">
        {t('people.invite.title')}
      </h2>
      <p className="muted">{t('people.invite.explain')}</p>
      <form className="token-form" onSubmit={(event) => void invite(event)}>
        <label className="token-form-label">
          <span>{t('people.invite.nameLabel')}</span>
          <input
            data-testid="invite-name"
            value={name}
            maxLength={MAX_ACCOUNT_NAME_CHARS}
            onChange={(event) => {
              setName(event.target.value);
              setRefusal(undefined);
            }}
          />
        </label>
        <label className="token-form-label">
          <span>{t('people.invite.workspaceLabel')}</span>
          <select
            data-testid="invite-workspace"
            value={chosen}
            onChange={(event) => {
              setWorkspaceId(event.target.value);
            }}
          >
            {props.workspaces.map((workspace) => (
              <option key={workspace.id} value={workspace.id}>
                {showBidiControls(workspace.name)}
              </option>
            ))}
            <option value="">{t('people.invite.noWorkspace')}</option>
          </select>
        </label>
        <label className="people-checkbox">
          <input
            type="checkbox"
            data-testid="invite-admin"
            checked={admin}
            onChange={(event) => {
              setAdmin(event.target.checked);
            }}
          />
          <span>{t('people.invite.adminLabel')}</span>
        </label>
        <button
          type="submit"
          className="button button-primary"
          data-testid="invite-submit"
          // Not `disabled` while inviting: that would drop the keyboard's focus on it to the page.
          aria-disabled={busy}
          disabled={!busy && blank}
        >
          {busy ? t('people.invite.inviting') : t('people.invite.submit')}
        </button>
      </form>
      <RefusalNote refusal={refusal} testId="invite-refused" />
      {invited !== undefined ? (
        <div className="token-secret">
          <p ref={doneRef} tabIndex={-1} data-testid="invite-done">
            {t('people.invite.done', { name: invited.user.name })}
          </p>
          {notAdded !== undefined ? (
            <p className="error" role="alert" data-testid="invite-not-added">
              {t('people.invite.notAdded', {
                name: invited.user.name,
                reason: refusalText(notAdded),
              })}
            </p>
          ) : null}
          <SignInLinkPanel
            url={invited.sign_in_url}
            expiresAt={invited.sign_in_expires_at}
            name={invited.user.name}
            testId="invite-link"
          />
        </div>
      ) : null}
    </section>
  );
}
