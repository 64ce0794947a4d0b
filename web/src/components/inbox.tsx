/**
 * `/`: everything waiting for a person across tasks, newest first and live
 * (clarification bundles, consent and action cards), the cards this visit
 * saw settle, and the task list with waiting markers.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { navigate } from '../app/router.js';
import { useModelState, useUserInputs } from '../app/services.js';
import { activeBundles, orderedQuestions, sessionsOfTask } from '../model/read-model.js';
import type { BundleState, ModelState } from '../model/read-model.js';
import {
  isWaiting,
  waitingByTask,
  waitingRequests,
  type UserInputEntry,
  type UserInputsState,
} from '../model/user-inputs.js';
import { FirstRun } from './first-run.js';
import { RelativeTime } from './relative-time.js';
import { UserInputCard } from './user-input-card.js';

function go(path: string) {
  return (event: { preventDefault(): void }) => {
    event.preventDefault();
    navigate(path);
  };
}

type InboxEntry =
  | { kind: 'bundle'; created_at: string; bundle: BundleState }
  | { kind: 'user_input'; created_at: string; entry: UserInputEntry };

/**
 * Requests this inbox showed as waiting that are now over: kept on screen, in
 * their own list, so an answer (from here or elsewhere) visibly lands.
 */
function useSettledSinceShown(state: UserInputsState, waiting: UserInputEntry[]) {
  const [shown, setShown] = useState<readonly string[]>([]);
  const waitingKey = waiting.map((entry) => entry.view.id).join(' ');
  useEffect(() => {
    const ids = waitingKey === '' ? [] : waitingKey.split(' ');
    setShown((known) => {
      const added = ids.filter((id) => !known.includes(id));
      return added.length === 0 ? known : [...known, ...added];
    });
  }, [waitingKey]);
  return shown
    .map((id) => state.requests[id])
    .filter((entry): entry is UserInputEntry => entry !== undefined && !isWaiting(entry))
    .reverse();
}

export function Inbox() {
  const { t } = useTranslation();
  const state = useModelState();
  const userInputs = useUserInputs();
  const bundles = activeBundles(state);
  const waiting = waitingRequests(userInputs);
  const recent = useSettledSinceShown(userInputs, waiting);
  const entries: InboxEntry[] = [
    ...bundles.map((bundle): InboxEntry => ({
      kind: 'bundle',
      created_at: bundle.created_at,
      bundle,
    })),
    ...waiting.map((entry): InboxEntry => ({
      kind: 'user_input',
      created_at: entry.view.created_at,
      entry,
    })),
  ].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));

  return (
    <div className="inbox-layout">
      <section className="inbox" aria-labelledby="inbox-title">
        <h1 id="inbox-title" className="page-title">
          {t('inbox.title')}
        </h1>
        {entries.length === 0 ? (
          <>
            <p className="muted" data-testid="inbox-empty">
              {t('inbox.empty')}
            </p>
            <FirstRun />
          </>
        ) : null}
        <ul className="inbox-list" data-testid="inbox-list">
          {entries.map((item) =>
            item.kind === 'bundle' ? (
              <BundleItem key={item.bundle.pending_id} state={state} bundle={item.bundle} />
            ) : (
              <li
                key={item.entry.view.id}
                className="inbox-item"
                data-testid="inbox-user-input"
                data-request-id={item.entry.view.id}
              >
                <UserInputCard
                  entry={item.entry}
                  taskTitle={state.tasks[item.entry.view.task_id]?.title ?? ''}
                />
              </li>
            ),
          )}
        </ul>
        {recent.length > 0 ? (
          <section
            className="inbox-recent"
            data-testid="inbox-recent"
            aria-labelledby="recent-title"
          >
            <h2 id="recent-title" className="section-title">
              {t('userInput.recentTitle')}
            </h2>
            <ul className="inbox-list">
              {recent.map((entry) => (
                <li
                  key={entry.view.id}
                  className="inbox-item"
                  data-testid="inbox-user-input"
                  data-request-id={entry.view.id}
                >
                  <UserInputCard
                    entry={entry}
                    taskTitle={state.tasks[entry.view.task_id]?.title ?? ''}
                  />
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </section>
      <TaskList state={state} bundles={bundles} userInputs={userInputs} />
    </div>
  );
}

function BundleItem({ state, bundle }: { state: ModelState; bundle: BundleState }) {
  const { t } = useTranslation();
  const first = orderedQuestions(bundle)[0];
  const path = `/sessions/${encodeURIComponent(bundle.session_id)}`;
  return (
    <li className="inbox-item" data-testid="inbox-item" data-pending-id={bundle.pending_id}>
      <a href={path} className="inbox-link" onClick={go(path)}>
        <span className="inbox-task">{state.tasks[bundle.task_id]?.title ?? ''}</span>
        <span className="inbox-prompt">{first?.prompt}</span>
        <span className="inbox-meta muted">
          {t('inbox.questionCount', { count: bundle.total })}
          {bundle.detached ? ` · ${t('inbox.detached')}` : ''}
          {' · '}
          <RelativeTime at={bundle.created_at} className="relative-time" />
        </span>
      </a>
    </li>
  );
}

function TaskList(props: {
  state: ModelState;
  bundles: BundleState[];
  userInputs: UserInputsState;
}) {
  const { t } = useTranslation();
  const { state } = props;
  const questions = new Set(props.bundles.map((bundle) => bundle.task_id));
  const requests = waitingByTask(props.userInputs);
  const tasks = Object.values(state.tasks).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1));
  return (
    <nav className="task-list" aria-labelledby="tasks-title">
      <h2 id="tasks-title" className="section-title">
        {t('tasks.title')}
      </h2>
      {tasks.length === 0 ? <p className="muted">{t('tasks.empty')}</p> : null}
      <ul>
        {tasks.map((task) => {
          const session = sessionsOfTask(state, task.id)[0];
          const path = session ? `/sessions/${encodeURIComponent(session.id)}` : '/';
          const request = requests[task.id];
          return (
            <li key={task.id}>
              <a
                href={path}
                className="task-link"
                data-testid="task-link"
                data-pending={questions.has(task.id) || request !== undefined}
                data-waiting={request}
                onClick={go(path)}
              >
                {request !== undefined ? <WaitingMarker kind={request} /> : null}
                {questions.has(task.id) ? (
                  <span
                    className="pending-marker"
                    title={t('tasks.pending')}
                    aria-label={t('tasks.pending')}
                  >
                    ?
                  </span>
                ) : null}
                <span className="task-title">{task.title}</span>
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function WaitingMarker({ kind }: { kind: 'consent' | 'action' }) {
  const { t } = useTranslation();
  const label = t(kind === 'consent' ? 'userInput.waitingConsent' : 'userInput.waitingAction');
  return (
    <span
      className="pending-marker waiting-marker"
      data-kind={kind}
      title={label}
      aria-label={label}
      data-testid="waiting-marker"
    >
      {kind === 'consent' ? '!' : '→'}
    </span>
  );
}
