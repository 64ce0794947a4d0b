/**
 * `/people`: who can use this Clarion and who is in which workspace. An
 * admin invites and deletes users, makes sign-in links for them and changes
 * workspaces' members; anyone else sees the members of their own workspaces.
 * Everything is read again when the person's memberships change, when the
 * page is shown again and after each change made here (`usePeopleRefresh`);
 * the workspaces are the app's one list (`NamesDirectory`), so a change made
 * here reaches the inbox and New task too.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserView } from '../../../src/wire/index.js';
import type { ApiFailure } from '../model/api.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import { useAccount, useServices } from '../app/services.js';
import { usePeopleRefresh } from '../hooks/use-people-refresh.js';
import { useWorkspaces } from '../hooks/use-workspace-names.js';
import { listAllWorkspaces, listUsers, type ListedWorkspace } from '../model/people-api.js';
import { canManageMembers } from '../model/people.js';
import { InviteForm } from './invite-form.js';
import { UsersSection } from './users-section.js';
import { WorkspaceMembers } from './workspace-members.js';

export function PeoplePage() {
  const { t } = useTranslation();
  const reason = useFailureReason();
  const account = useAccount();
  const me = account.status === 'signed_in' ? account.me : undefined;
  const admin = me !== undefined && canManageMembers(me);
  const { revision, bump } = usePeopleRefresh();
  const { names } = useServices();
  const read = useWorkspaces();
  const [users, setUsers] = useState<UserView[]>();
  const [usersFailed, setUsersFailed] = useState<ApiFailure>();
  // An admin manages every workspace, their own or not: the app's list holds only their own.
  const [everyWorkspace, setEveryWorkspace] = useState<ListedWorkspace[]>();
  const [everyFailed, setEveryFailed] = useState<ApiFailure>();
  const workspaces: readonly ListedWorkspace[] | undefined = admin
    ? everyWorkspace
    : read.workspaces;
  const loadFailed = (admin ? everyFailed : read.error) ?? usersFailed;

  useEffect(() => {
    // The workspaces are the app's one list: read again for every view that names them.
    if (revision > 0) names.refresh();
  }, [names, revision]);

  useEffect(() => {
    if (!admin) return;
    let current = true;
    void listUsers().then((userList) => {
      if (!current) return;
      setUsersFailed(userList.ok ? undefined : userList);
      if (userList.ok) setUsers(userList.value.users);
    });
    void listAllWorkspaces().then((listed) => {
      if (!current) return;
      setEveryFailed(listed.ok ? undefined : listed);
      if (listed.ok) setEveryWorkspace(listed.value.workspaces);
    });
    return () => {
      current = false;
    };
  }, [admin, revision]);

  return (
    <section className="settings" data-testid="people" aria-labelledby="people-title">
      <h1 id="people-title" className="page-title">
        {t('people.title')}
      </h1>
      <p className="muted">{t('people.explain')}</p>
      {admin ? null : (
        <p className="muted" data-testid="people-read-only">
          {t('people.readOnly')}
        </p>
      )}
      {loadFailed !== undefined ? (
        <p className="error" role="alert">
          {t('people.loadFailed', { error: reason(loadFailed) })}
        </p>
      ) : null}
      {admin && workspaces !== undefined ? (
        <InviteForm workspaces={workspaces} onInvited={bump} />
      ) : null}
      {admin && users !== undefined ? (
        <UsersSection users={users} meId={me.user.id} onChanged={bump} />
      ) : null}
      <section
        className="settings-section"
        data-testid="workspaces"
        aria-labelledby="workspaces-title"
      >
        <h2 id="workspaces-title" className="section-title">
          {t('people.workspaces.title')}
        </h2>
        {workspaces !== undefined && workspaces.length === 0 ? (
          <p className="muted">{t('people.workspaces.empty')}</p>
        ) : null}
        {(workspaces ?? []).map((workspace) => (
          <WorkspaceMembers
            key={workspace.id}
            workspace={workspace}
            me={me}
            users={admin ? users : undefined}
            revision={revision}
            onChanged={bump}
          />
        ))}
      </section>
    </section>
  );
}
