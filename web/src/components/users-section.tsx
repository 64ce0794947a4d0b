/**
 * People → "Users" (admins): everyone who can sign in to this Clarion. A new
 * sign-in link for someone is shown under their row to hand over; deleting
 * someone asks first, on the page, saying what it ends. The list is read
 * from the server after every change, never patched by guesswork.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SignInLinkReply, UserView } from '../../../src/wire/index.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useRefocusAfterRemoval } from '../hooks/use-refocus-after-removal.js';
import { deleteUser, signInLinkFor } from '../model/people-api.js';
import { refusalOf, type Refusal } from '../model/people.js';
import { DecisionConfirm } from './decision-confirm.js';
import { RefusalNote } from './refusal-note.js';
import { SignInLinkPanel } from './sign-in-link-panel.js';
import { UserText } from './user-text.js';

export function UsersSection(props: {
  users: readonly UserView[];
  meId: string;
  onChanged: () => void;
}) {
  const { t } = useTranslation();
  const [link, setLink] = useState<{ userId: string; reply: SignInLinkReply }>();
  const [confirming, setConfirming] = useState<string>();
  // One change at a time across the list.
  const { busy, run } = useBusyAction();
  const [refusal, setRefusal] = useState<{ userId: string; refusal: Refusal }>();
  const listRef = useRef<HTMLUListElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const setRefocus = useRefocusAfterRemoval(
    listRef,
    '[data-testid="user"]',
    headingRef,
    props.users,
  );
  // A deleted user's row and its place: the focus moves once the page's list reads without it.
  const [leaving, setLeaving] = useState<{ userId: string; index: number }>();
  useEffect(() => {
    if (leaving === undefined || props.users.some((user) => user.id === leaving.userId)) return;
    setLeaving(undefined);
    setRefocus({ index: leaving.index, stayed: false });
  }, [leaving, props.users, setRefocus]);

  async function newLink(user: UserView): Promise<void> {
    setRefusal(undefined);
    const result = await signInLinkFor(user.id);
    if (result.ok) setLink({ userId: user.id, reply: result.value });
    else setRefusal({ userId: user.id, refusal: refusalOf(result) });
  }

  async function remove(user: UserView): Promise<void> {
    setConfirming(undefined);
    setRefusal(undefined);
    const result = await deleteUser(user.id);
    if (!result.ok) setRefusal({ userId: user.id, refusal: refusalOf(result) });
    if (link?.userId === user.id) setLink(undefined);
    const index = props.users.findIndex((shown) => shown.id === user.id);
    if (result.ok) setLeaving({ userId: user.id, index });
    else setRefocus({ index, stayed: true });
    props.onChanged();
  }

  return (
    <section className="settings-section" data-testid="users" aria-labelledby="users-title">
      <h2 id="users-title" className="section-title" ref={headingRef} tabIndex={-1}>
        {t('people.users.title')}
      </h2>
      <ul className="token-list" data-testid="user-list" ref={listRef}>
        {props.users.map((user) => (
          <li key={user.id} className="people-item" data-testid="user" data-user-id={user.id}>
            <div className="token-item">
              <span className="token-name">
                <UserText text={user.name} />
              </span>
              {user.is_admin ? <span className="chip">{t('people.admin')}</span> : null}
              {user.id === props.meId ? <span className="chip">{t('people.you')}</span> : null}
              <span className="people-actions">
                <button
                  type="button"
                  className="button"
                  data-testid="user-new-link"
                  aria-label={t('people.users.newLinkLabel', { name: user.name })}
                  // Not `disabled` while busy: that would drop the keyboard's focus on it to the page.
                  aria-disabled={busy}
                  onClick={() => void run(() => newLink(user))}
                >
                  {t('people.users.newLink')}
                </button>
                {user.id === props.meId ? null : (
                  <button
                    type="button"
                    className="button"
                    data-testid="user-delete"
                    aria-label={t('people.users.deleteLabel', { name: user.name })}
                    aria-expanded={confirming === user.id}
                    // Not `disabled` while busy: it holds the focus while its deletion goes.
                    aria-disabled={busy}
                    onClick={() => {
                      if (busy) return;
                      setConfirming(user.id);
                      setRefusal(undefined);
                    }}
                  >
                    {t('people.users.delete')}
                  </button>
                )}
              </span>
            </div>
            {confirming === user.id ? (
              <DecisionConfirm
                prompt={t('people.users.deleteConfirm', { name: user.name })}
                yes={t('people.users.deleteYes', { name: user.name })}
                withReason={false}
                backOnConfirm
                onConfirm={() => void run(() => remove(user))}
                onCancel={() => {
                  setConfirming(undefined);
                }}
              />
            ) : null}
            <RefusalNote
              refusal={refusal?.userId === user.id ? refusal.refusal : undefined}
              testId="user-refused"
            />
            {link?.userId === user.id ? (
              <SignInLinkPanel
                url={link.reply.url}
                expiresAt={link.reply.expires_at}
                name={user.name}
                testId="user-link"
              />
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
