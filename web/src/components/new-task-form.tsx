/**
 * `/tasks/new`: start a task from the web app — title, agent profile (from
 * `GET /api/v1/agent-profiles`), the workspace (only for a person in more
 * than one; the last choice is offered first), an optional working directory
 * and the first prompt. What the form can judge (a missing or too long title
 * or prompt) it says itself, in the page's language, before sending; the
 * server's other 400 problems show beside their fields.
 * On success the new session opens. A first prompt the session did not take
 * (its agent failed to start) waits in that session's composer, with a note,
 * so a restart and Send is all it takes. Every control is a native form control
 * (Enter submits from any field, Ctrl/⌘+Enter from the prompt) and at least
 * the target size on touch screens.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import type { AgentProfileView, WorkspaceView } from '../../../src/wire/index.js';
import { navigate } from '../app/router.js';
import { useServices } from '../app/services.js';
import { keepUnsentFirstInstruction } from '../model/composer-draft.js';
import { memoryKeyStore, storageKeyStore, type KeyStore } from '../model/late-answer.js';
import { preferredWorkspace, rememberWorkspace } from '../model/task-workspace.js';
import { useWorkspaces } from '../hooks/use-workspace-names.js';
import { showBidiControls } from '../model/bidi.js';
import { newTaskProblems, taskFieldProblemOf } from '../model/new-task-check.js';
import { agentProfiles, createTask, fieldProblems } from '../model/tasks-api.js';
import { webSessionPath } from '../../../src/wire/constants.js';

const NO_WORKSPACES: readonly WorkspaceView[] = [];

const FIELDS = ['title', 'agent_profile', 'workspace_id', 'cwd', 'prompt'] as const;
type Field = (typeof FIELDS)[number];
/** A sentence said with the page's words at the time it is shown, not when it arose. */
type Say = (t: Translate, reason: ReturnType<typeof useFailureReason>) => string;
type Translate = ReturnType<typeof useTranslation>['t'];

export function NewTaskForm() {
  const { t } = useTranslation();
  const reason = useFailureReason();
  const { keyStore } = useServices();
  const id = useId();
  const [profiles, setProfiles] = useState<AgentProfileView[] | undefined>();
  const [title, setTitle] = useState('');
  const [profile, setProfile] = useState('');
  const read = useWorkspaces();
  const memberOf = read.workspaces ?? NO_WORKSPACES;
  const [chosen, setWorkspace] = useState('');
  // The choice stands while its workspace is listed; one the person left falls back.
  const workspace = memberOf.some((each) => each.id === chosen)
    ? chosen
    : (preferredWorkspace(choices(), memberOf) ?? '');
  const [cwd, setCwd] = useState('');
  const [prompt, setPrompt] = useState('');
  const { busy, run } = useBusyAction();
  // How to say each problem, not the words said: a change of language says them again.
  const [problems, setProblems] = useState<Partial<Record<Field, Say>>>({});
  const [error, setError] = useState<Say | undefined>();
  // A press of Start task that found problems takes the keyboard to the first of them, where
  // it is said; the announcement alone would leave the person on the button.
  const formRef = useRef<HTMLFormElement>(null);
  const focusFirstProblem = useRef(false);
  const showProblems = (found: Partial<Record<Field, Say>>) => {
    focusFirstProblem.current = true;
    setProblems(found);
  };
  useEffect(() => {
    if (!focusFirstProblem.current) return;
    focusFirstProblem.current = false;
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [problems]);
  const sayError = (say: Say) => {
    setError(() => say);
  };
  const shownError =
    error?.(t, reason) ??
    (read.error === undefined
      ? undefined
      : t('newTask.workspacesFailed', { error: reason(read.error) }));

  useEffect(() => {
    let cancelled = false;
    void agentProfiles().then((result) => {
      if (cancelled) return;
      if (result.ok) {
        setProfiles(result.value.profiles);
        setProfile((chosen) => chosen || (result.value.profiles[0]?.name ?? ''));
      } else {
        sayError((t, reason) => t('newTask.profilesFailed', { error: reason(result) }));
      }
    });
    return () => {
      cancelled = true;
    };
  }, [t]);

  async function submit(event?: { preventDefault(): void }): Promise<void> {
    event?.preventDefault();
    if (busy) return;
    setError(undefined);
    const local = newTaskProblems(title, prompt);
    if (local.length > 0) {
      showProblems(
        Object.fromEntries(
          local.map((found): [Field, Say] => [
            found.field,
            found.problem === 'required'
              ? (t) => t('newTask.titleRequired')
              : (t) =>
                  t(found.field === 'title' ? 'newTask.titleTooLong' : 'newTask.promptTooLong', {
                    max: found.max,
                  }),
          ]),
        ),
      );
      return;
    }
    const result = await run(() => {
      setProblems({});
      return createTask({
        title,
        ...(profile === '' ? {} : { agent_profile: profile }),
        ...(workspace === '' ? {} : { workspace_id: workspace }),
        ...(cwd.trim() === '' ? {} : { cwd: cwd.trim() }),
        ...(prompt.trim() === '' ? {} : { prompt }),
      });
    });
    // A press while one was in flight: that one is answered.
    if (result === undefined) return;
    if (result.ok) {
      if (workspace !== '') rememberWorkspace(choices(), workspace);
      const { session, admission } = result.value;
      // `sent` and `queued` are kept by the server; anything else left the prompt nowhere.
      if (admission !== undefined && admission !== 'sent' && admission !== 'queued') {
        keepUnsentFirstInstruction(keyStore, session.id, prompt);
      }
      navigate(webSessionPath(session.id));
      return;
    }
    // The server's checks of the directory and profile come as codes: said in the page's language.
    const said = (t: Translate): Record<string, string> =>
      fieldProblems(result, (issue) => {
        const code = taskFieldProblemOf(issue.code);
        return code === undefined ? issue.message : t(`newTask.problem.${code}`);
      });
    const known: Partial<Record<Field, Say>> = {};
    const other: string[] = [];
    for (const field of Object.keys(said(t))) {
      if ((FIELDS as readonly string[]).includes(field)) {
        known[field as Field] = (t) => said(t)[field] ?? '';
      } else other.push(field);
    }
    showProblems(known);
    if (Object.keys(known).length === 0 || other.length > 0) {
      sayError((t, reason) =>
        t('newTask.failed', {
          error: [reason(result), ...other.map((field) => said(t)[field] ?? '')].join('; '),
        }),
      );
    }
  }

  const described = (field: Field) =>
    problems[field] === undefined ? undefined : `${id}-${field}-problem`;
  const problem = (field: Field) =>
    problems[field] === undefined ? null : (
      <span
        id={`${id}-${field}-problem`}
        className="field-problem"
        role="alert"
        data-testid={`new-task-${field}-problem`}
      >
        {problems[field](t, reason)}
      </span>
    );

  return (
    <section className="new-task" data-testid="new-task" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`} className="page-title">
        {t('newTask.title')}
      </h1>
      <p className="muted">{t('newTask.explain')}</p>
      <form
        ref={formRef}
        className="new-task-form"
        noValidate
        onSubmit={(event) => void submit(event)}
      >
        <label className="form-field">
          <span>{t('newTask.titleLabel')}</span>
          <input
            data-testid="new-task-title"
            value={title}
            required
            autoFocus
            aria-invalid={problems.title !== undefined}
            aria-describedby={described('title')}
            onChange={(event) => {
              setTitle(event.target.value);
            }}
          />
          {problem('title')}
        </label>
        <label className="form-field">
          <span>{t('newTask.profileLabel')}</span>
          <select
            data-testid="new-task-profile"
            value={profile}
            aria-invalid={problems.agent_profile !== undefined}
            aria-describedby={described('agent_profile')}
            onChange={(event) => {
              setProfile(event.target.value);
            }}
          >
            {(profiles ?? []).map((item) => (
              <option key={item.name} value={item.name}>
                {item.name}
              </option>
            ))}
          </select>
          {problem('agent_profile')}
        </label>
        {memberOf.length > 1 ? (
          <label className="form-field">
            <span>{t('newTask.workspaceLabel')}</span>
            <select
              data-testid="new-task-workspace"
              value={workspace}
              aria-invalid={problems.workspace_id !== undefined}
              aria-describedby={described('workspace_id')}
              onChange={(event) => {
                setWorkspace(event.target.value);
              }}
            >
              {memberOf.map((item) => (
                <option key={item.id} value={item.id}>
                  {showBidiControls(item.name)}
                </option>
              ))}
            </select>
            {problem('workspace_id')}
          </label>
        ) : null}
        <label className="form-field">
          <span>{t('newTask.cwdLabel')}</span>
          <input
            data-testid="new-task-cwd"
            value={cwd}
            placeholder={t('newTask.cwdPlaceholder')}
            spellCheck={false}
            autoCapitalize="off"
            aria-invalid={problems.cwd !== undefined}
            aria-describedby={described('cwd')}
            onChange={(event) => {
              setCwd(event.target.value);
            }}
          />
          {problem('cwd')}
        </label>
        <label className="form-field">
          <span>{t('newTask.promptLabel')}</span>
          <textarea
            data-testid="new-task-prompt"
            value={prompt}
            rows={4}
            placeholder={t('newTask.promptPlaceholder')}
            aria-invalid={problems.prompt !== undefined}
            aria-describedby={described('prompt')}
            onChange={(event) => {
              setPrompt(event.target.value);
            }}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                event.preventDefault();
                void submit();
              }
            }}
          />
          {problem('prompt')}
        </label>
        <div className="form-actions">
          <button
            type="submit"
            className="button button-primary"
            data-testid="new-task-create"
            // Not `disabled` while it starts: that would drop the keyboard's focus on it to the page.
            aria-disabled={busy}
          >
            {busy ? t('newTask.creating') : t('newTask.create')}
          </button>
          <button
            type="button"
            className="button"
            onClick={() => {
              navigate('/');
            }}
          >
            {t('newTask.cancel')}
          </button>
        </div>
      </form>
      {shownError !== undefined ? (
        <p className="error" role="alert" data-testid="new-task-error">
          {shownError}
        </p>
      ) : null}
    </section>
  );
}

/** Where the last choice is kept: localStorage, so it outlives the tab, when the browser allows it. */
function choices(): KeyStore {
  try {
    return storageKeyStore(window.localStorage);
  } catch {
    return memoryKeyStore();
  }
}
