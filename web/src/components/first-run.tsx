/**
 * The empty inbox's ways in (issue 15): "Try the demo" starts a task on the
 * bundled demo agent with a prompt that makes it ask a question, and opens
 * its session; "Connect an agent" shows the MCP command with a new token (the
 * Settings panel's own component); "New task" opens the new-task page.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import { navigate } from '../app/router.js';
import type { ApiFailure } from '../model/api.js';
import { createTask } from '../model/tasks-api.js';
import { ClaudeCodeSection } from './claude-code-section.js';
import { webSessionPath } from '../../../src/wire/constants.js';

/** The bundled agent's profile, and the keyword that makes it ask one question. */
const DEMO_PROFILE = 'demo';
const DEMO_PROMPT = '/ask';

export function FirstRun() {
  const { t } = useTranslation();
  const reason = useFailureReason();
  const { busy, run } = useBusyAction();
  const [connecting, setConnecting] = useState(false);
  // The failure, not its sentence: said at each render, in the language the page has then.
  const [failed, setFailed] = useState<ApiFailure>();

  async function tryDemo(): Promise<void> {
    setFailed(undefined);
    const result = await createTask({
      title: t('firstRun.demoTaskTitle'),
      agent_profile: DEMO_PROFILE,
      prompt: DEMO_PROMPT,
    });
    if (result.ok) navigate(webSessionPath(result.value.session.id));
    else setFailed(result);
  }

  return (
    <section className="first-run" data-testid="first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title" className="section-title">
        {t('firstRun.title')}
      </h2>
      <p className="muted">{t('firstRun.explain')}</p>
      <div className="first-run-actions">
        <button
          type="button"
          className="button button-primary"
          data-testid="first-run-demo"
          // Not `disabled`: that would drop the keyboard's focus on it to the page while it starts.
          aria-disabled={busy}
          onClick={() => void run(tryDemo)}
        >
          {busy ? t('firstRun.demoStarting') : t('firstRun.demo')}
        </button>
        <button
          type="button"
          className="button"
          data-testid="first-run-connect"
          aria-expanded={connecting}
          onClick={() => {
            setConnecting((open) => !open);
          }}
        >
          {t('firstRun.connect')}
        </button>
        <button
          type="button"
          className="button"
          data-testid="first-run-new-task"
          onClick={() => {
            navigate('/tasks/new');
          }}
        >
          {t('firstRun.newTask')}
        </button>
      </div>
      {failed !== undefined ? (
        <p className="error" role="alert">
          {t('firstRun.demoFailed', { error: reason(failed) })}
        </p>
      ) : null}
      {connecting ? <ClaudeCodeSection /> : null}
    </section>
  );
}
