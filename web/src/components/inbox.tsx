/**
 * `/`: every active question across tasks (newest first, live) and the task
 * list with pending markers.
 */
import { useTranslation } from 'react-i18next';
import { navigate } from '../app/router.js';
import { useModelState } from '../app/services.js';
import { activeBundles, orderedQuestions, sessionsOfTask } from '../model/read-model.js';

function go(path: string) {
  return (event: { preventDefault(): void }) => {
    event.preventDefault();
    navigate(path);
  };
}

export function Inbox() {
  const { t } = useTranslation();
  const state = useModelState();
  const bundles = activeBundles(state);
  const pendingTasks = new Set(bundles.map((bundle) => bundle.task_id));
  const tasks = Object.values(state.tasks).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1));

  return (
    <div className="inbox-layout">
      <section className="inbox" aria-labelledby="inbox-title">
        <h1 id="inbox-title" className="page-title">
          {t('inbox.title')}
        </h1>
        {bundles.length === 0 ? (
          <p className="muted" data-testid="inbox-empty">
            {t('inbox.empty')}
          </p>
        ) : null}
        <ul className="inbox-list" data-testid="inbox-list">
          {bundles.map((bundle) => {
            const first = orderedQuestions(bundle)[0];
            const path = `/sessions/${encodeURIComponent(bundle.session_id)}`;
            return (
              <li
                key={bundle.pending_id}
                className="inbox-item"
                data-testid="inbox-item"
                data-pending-id={bundle.pending_id}
              >
                <a href={path} className="inbox-link" onClick={go(path)}>
                  <span className="inbox-task">{state.tasks[bundle.task_id]?.title ?? ''}</span>
                  <span className="inbox-prompt">{first?.prompt}</span>
                  <span className="inbox-meta muted">
                    {t('inbox.questionCount', { count: bundle.total })}
                    {bundle.detached ? ` · ${t('inbox.detached')}` : ''}
                  </span>
                </a>
              </li>
            );
          })}
        </ul>
      </section>
      <nav className="task-list" aria-labelledby="tasks-title">
        <h2 id="tasks-title" className="section-title">
          {t('tasks.title')}
        </h2>
        {tasks.length === 0 ? <p className="muted">{t('tasks.empty')}</p> : null}
        <ul>
          {tasks.map((task) => {
            const session = sessionsOfTask(state, task.id)[0];
            const path = session ? `/sessions/${encodeURIComponent(session.id)}` : '/';
            const pending = pendingTasks.has(task.id);
            return (
              <li key={task.id}>
                <a
                  href={path}
                  className="task-link"
                  data-testid="task-link"
                  data-pending={pending}
                  onClick={go(path)}
                >
                  {pending ? (
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
    </div>
  );
}
