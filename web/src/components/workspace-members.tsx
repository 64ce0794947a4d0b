/**
 * One workspace on the People page: its members and their roles. An admin
 * adds a member (chosen among the users not in it yet), makes one an owner or
 * a plain member, and removes one after confirming on the page; anyone else
 * sees the list only. The server keeps an owner in every workspace, so
 * demoting or removing the last one comes back as a refusal saying what to
 * do first. Read again at every `revision` (another tab, another admin, this
 * person's own memberships changing).
 */
import { useCallback, useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserView } from '../../../src/wire/index.js';
import type { ApiFailure, ApiResult, Me } from '../model/api.js';
import type { ListedWorkspace } from '../model/people-api.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useRefocusAfterRemoval } from '../hooks/use-refocus-after-removal.js';
import {
  putMember,
  removeMember,
  workspaceMembers,
  type MemberRole,
  type WorkspaceMember,
} from '../model/members-api.js';
import { addableUsers, canRenameWorkspace, refusalOf, type Refusal } from '../model/people.js';
import { DecisionConfirm } from './decision-confirm.js';
import { RefusalNote } from './refusal-note.js';
import { UserText } from './user-text.js';
import { WorkspaceRename } from './workspace-rename.js';
import { showBidiControls } from '../model/bidi.js';

export function WorkspaceMembers(props: {
  workspace: ListedWorkspace;
  /** Who is looking: an admin or an owner of the workspace may rename it. */
  me: Me | undefined;
  /** Every user, when the person may change members; otherwise the list is read-only. */
  users: readonly UserView[] | undefined;
  revision: number;
  onChanged: () => void;
}) {
  const { t } = useTranslation();
  const reason = useFailureReason();
  const { workspace, users } = props;
  const [members, setMembers] = useState<WorkspaceMember[]>();
  const [loadFailed, setLoadFailed] = useState<ApiFailure>();
  const [adding, setAdding] = useState('');
  const [confirming, setConfirming] = useState<string>();
  // One change at a time in this workspace.
  const { busy, run } = useBusyAction();
  const [refusal, setRefusal] = useState<Refusal>();
  const listRef = useRef<HTMLUListElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const sectionRef = useRef<HTMLElement>(null);
  const setRefocus = useRefocusAfterRemoval(listRef, '[data-testid="member"]', headingRef, members);
  // The control a change was made with may have lost the focus (Add is disabled as its choice
  // empties, a row may go): it gets it back once usable (the heading if it is gone). Focus the
  // person moved elsewhere is theirs.
  const [focusBack, setFocusBack] = useState<string>();
  useEffect(() => {
    if (focusBack === undefined || busy) return;
    setFocusBack(undefined);
    // A control disabled under the focus (Add) drops it only at Chromium's next layout: lost too.
    const active = document.activeElement;
    if (active !== null && active !== document.body && !active.matches(':disabled')) return;
    (sectionRef.current?.querySelector<HTMLElement>(focusBack) ?? headingRef.current)?.focus();
  }, [focusBack, busy]);

  // Reads overlap (a frame, the page shown again, a change here) and may answer out of order:
  // only the newest one's list is shown, or a member removed meanwhile would come back.
  const reads = useRef(0);
  const load = useCallback(async () => {
    reads.current += 1;
    const mine = reads.current;
    const result = await workspaceMembers(workspace.id);
    if (mine !== reads.current) return;
    if (result.ok) {
      setMembers(result.value.members);
      setLoadFailed(undefined);
    } else {
      setLoadFailed(result);
    }
  }, [workspace.id]);

  useEffect(() => {
    void load();
  }, [load, props.revision]);

  /** `undefined` for a press while another change was in flight: nothing was sent. */
  async function change(
    action: () => Promise<ApiResult<unknown>>,
  ): Promise<ApiResult<unknown> | undefined> {
    const result = await run(() => {
      setRefusal(undefined);
      setConfirming(undefined);
      return action();
    });
    if (result === undefined) return undefined;
    if (!result.ok) setRefusal(refusalOf(result));
    props.onChanged();
    return result;
  }

  /** Removes `member`; focus, which the closing confirm step held, stays in this workspace. */
  async function remove(member: WorkspaceMember): Promise<void> {
    const index = members?.findIndex((shown) => shown.user_id === member.user_id) ?? -1;
    const result = await change(() => removeMember(workspace.id, member.user_id));
    if (result === undefined) return;
    // Read here rather than at the next revision: the focus moves once the row is gone.
    await load();
    setRefocus({ index, stayed: !result.ok });
  }

  async function setRole(member: WorkspaceMember, role: MemberRole): Promise<void> {
    if (
      (await change(() => putMember(workspace.id, { user_id: member.user_id, role }))) === undefined
    )
      return;
    setFocusBack(
      `[data-user-id="${CSS.escape(member.user_id)}"] [data-testid="member-role-toggle"]`,
    );
  }

  function add(event: SyntheticEvent): void {
    event.preventDefault();
    const userId = adding;
    if (userId === '') return;
    void change(() => {
      setAdding('');
      return putMember(workspace.id, { user_id: userId, role: 'member' });
    }).then((result) => {
      if (result !== undefined) setFocusBack('[data-testid="member-add-user"]');
    });
  }

  const choices = users !== undefined && members !== undefined ? addableUsers(users, members) : [];
  const named = { workspace: workspace.name };
  return (
    <section
      className="settings-section people-workspace"
      data-testid="workspace"
      data-workspace-id={workspace.id}
      ref={sectionRef}
      aria-labelledby={`workspace-${workspace.id}`}
    >
      <h3 id={`workspace-${workspace.id}`} className="section-title" ref={headingRef} tabIndex={-1}>
        <UserText text={workspace.name} />
      </h3>
      {workspace.member === false ? (
        <p className="muted" data-testid="workspace-not-member">
          {t('people.workspaces.notMember')}
        </p>
      ) : null}
      {canRenameWorkspace(props.me, members) ? (
        <WorkspaceRename workspace={workspace} onRenamed={props.onChanged} />
      ) : null}
      {loadFailed !== undefined ? (
        <p className="error" role="alert">
          {t('people.loadFailed', { error: reason(loadFailed) })}
        </p>
      ) : null}
      <ul className="token-list" ref={listRef} aria-label={t('people.workspaces.membersOf', named)}>
        {(members ?? []).map((member) => {
          const who = { name: member.user_name, ...named };
          return (
            <li
              key={member.user_id}
              className="people-item"
              data-testid="member"
              data-user-id={member.user_id}
              data-role={member.role}
            >
              <div className="token-item">
                <span className="token-name">
                  <UserText text={member.user_name} />
                </span>
                <span className="chip" data-testid="member-role">
                  {member.role === 'owner'
                    ? t('people.workspaces.owner')
                    : t('people.workspaces.member')}
                </span>
                {users !== undefined ? (
                  <span className="people-actions">
                    <button
                      type="button"
                      className="button"
                      data-testid="member-role-toggle"
                      aria-label={
                        member.role === 'owner'
                          ? t('people.workspaces.makeMemberLabel', who)
                          : t('people.workspaces.makeOwnerLabel', who)
                      }
                      // Not `disabled` while busy: that would drop the keyboard's focus to the page.
                      aria-disabled={busy}
                      onClick={() =>
                        void setRole(member, member.role === 'owner' ? 'member' : 'owner')
                      }
                    >
                      {member.role === 'owner'
                        ? t('people.workspaces.makeMember')
                        : t('people.workspaces.makeOwner')}
                    </button>
                    <button
                      type="button"
                      className="button"
                      data-testid="member-remove"
                      aria-label={t('people.workspaces.removeLabel', who)}
                      aria-expanded={confirming === member.user_id}
                      // Not `disabled` while busy: it holds the focus while its removal goes.
                      aria-disabled={busy}
                      onClick={() => {
                        if (busy) return;
                        setConfirming(member.user_id);
                        setRefusal(undefined);
                      }}
                    >
                      {t('people.workspaces.remove')}
                    </button>
                  </span>
                ) : null}
              </div>
              {confirming === member.user_id ? (
                <DecisionConfirm
                  prompt={t('people.workspaces.removeConfirm', who)}
                  yes={t('people.workspaces.removeYes', who)}
                  withReason={false}
                  backOnConfirm
                  onConfirm={() => void remove(member)}
                  onCancel={() => {
                    setConfirming(undefined);
                  }}
                />
              ) : null}
            </li>
          );
        })}
      </ul>
      <RefusalNote refusal={refusal} testId="workspace-refused" />
      {users !== undefined && members !== undefined ? (
        choices.length > 0 ? (
          <form className="token-form" onSubmit={add}>
            <label className="token-form-label">
              <span>{t('people.workspaces.addLabel', named)}</span>
              <select
                data-testid="member-add-user"
                value={adding}
                onChange={(event) => {
                  setAdding(event.target.value);
                }}
              >
                <option value="">{t('people.workspaces.choose')}</option>
                {choices.map((user) => (
                  <option key={user.id} value={user.id}>
                    {showBidiControls(user.name)}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="submit"
              className="button button-primary"
              data-testid="member-add"
              aria-disabled={busy}
              disabled={!busy && adding === ''}
            >
              {t('people.workspaces.add')}
            </button>
          </form>
        ) : (
          <p className="muted">{t('people.workspaces.everyoneIn')}</p>
        )
      ) : null}
    </section>
  );
}
