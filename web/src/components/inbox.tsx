/**
 * `/`: the triage list of everything waiting for a person across tasks
 * (expiring first, then the longest waiting; see `model/triage.ts`), each row
 * with its kind, task, agent and age; a one-question bundle, a consent and an
 * action answered in place; J/K/Enter to move and open; several consents of
 * one tool decided at once. Then the cards this visit saw settle, and the task
 * list with waiting markers.
 */
import { useCallback, useContext, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { navigate, questionPath } from '../app/router.js';
import { useModelState, useUserInputs } from '../app/services.js';
import { useCoarsePointer } from '../hooks/use-coarse-pointer.js';
import { useFocusRescue, type LostFocus } from '../hooks/use-focus-rescue.js';
import { useMe } from '../hooks/use-me.js';
import { usePeopleNames } from '../hooks/use-people-names.js';
import { useTriageItems } from '../hooks/use-triage-items.js';
import { useTriageKeys } from '../hooks/use-triage-keys.js';
import { useWorkspaceNames, WorkspaceNames } from '../hooks/use-workspace-names.js';
import { orderedQuestions, sessionsOfTask } from '../model/read-model.js';
import type { BundleState, ModelState } from '../model/read-model.js';
import { bulkGroupOf, triageOrder, type TriageItem } from '../model/triage.js';
import type { ConsentView } from '../model/types.js';
import {
  isWaiting,
  waitingByTask,
  type UserInputEntry,
  type UserInputsState,
} from '../model/user-inputs.js';
import { BulkConsentBar } from './bulk-consent-bar.js';
import { InlineQuestion } from './inline-question.js';
import { FirstRun } from './first-run.js';
import { RelativeTime } from './relative-time.js';
import { TaskOwner, type People } from './task-owner.js';
import { UserInputCard } from './user-input-card.js';
import { UserText } from './user-text.js';
import { webSessionPath } from '../../../src/wire/constants.js';

function go(path: string) {
  return (event: { preventDefault(): void }) => {
    event.preventDefault();
    navigate(path);
  };
}

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

/**
 * Bundles answered from this inbox stay listed, in their place, after they
 * stop waiting, so the answer's outcome (or a lost race) stays on screen until
 * closed.
 */
function useKeptItems(items: TriageItem[]) {
  const [kept, setKept] = useState<Record<string, TriageItem>>({});
  const keep = useCallback((item: TriageItem) => {
    setKept((known) => (known[item.key] ? known : { ...known, [item.key]: item }));
  }, []);
  const release = useCallback((key: string) => {
    setKept((known) => Object.fromEntries(Object.entries(known).filter(([k]) => k !== key)));
  }, []);
  const live = new Set(items.map((item) => item.key));
  const shown = [...items, ...Object.values(kept).filter((item) => !live.has(item.key))].sort(
    triageOrder,
  );
  return { shown, live, keep, release };
}

/** The selected consents, all of one group (tool and agent profile). */
function useBulkSelection(items: TriageItem[]) {
  const [selected, setSelected] = useState<readonly string[]>([]);
  const waiting = items.filter((item) => bulkGroupOf(item) !== undefined);
  const chosen = waiting.filter((item) => selected.includes(item.key));
  const group = chosen[0] ? bulkGroupOf(chosen[0]) : undefined;
  const toggle = (item: TriageItem) => {
    setSelected((known) =>
      known.includes(item.key) ? known.filter((key) => key !== item.key) : [...known, item.key],
    );
  };
  const views = chosen.flatMap((item) =>
    item.source === 'user_input' && item.entry.view.kind === 'consent' ? [item.entry.view] : [],
  );
  return {
    views,
    isSelected: (item: TriageItem) => selected.includes(item.key),
    /** Only consents of the group already chosen can join it. */
    selectable: (item: TriageItem) => {
      const own = bulkGroupOf(item);
      return own !== undefined && (group === undefined || own === group);
    },
    toggle,
    clear: () => {
      setSelected([]);
    },
  };
}

export function Inbox() {
  const { t } = useTranslation();
  const state = useModelState();
  const userInputs = useUserInputs();
  const items = useTriageItems();
  const { shown, live, keep, release } = useKeptItems(items);
  const waiting = items.flatMap((item) => (item.source === 'user_input' ? [item.entry] : []));
  const recent = useSettledSinceShown(userInputs, waiting);
  const bulk = useBulkSelection(items);
  const listRef = useRef<HTMLUListElement>(null);
  const open = useCallback((sessionId: string, pendingId: string | undefined) => {
    navigate(
      pendingId === undefined ? webSessionPath(sessionId) : questionPath(sessionId, pendingId),
    );
  }, []);
  useTriageKeys(listRef, open);
  const inboxRef = useFocusRescue('[data-triage-key], [data-testid="bulk-bar"]', nextInFocus);
  const coarse = useCoarsePointer();
  const taskTitle = (view: ConsentView) => state.tasks[view.task_id]?.title ?? '';
  const people: People = {
    me: useMe(),
    names: usePeopleNames(Object.values(state.tasks)),
  };
  const workspaceNames = useWorkspaceNames();
  // Until both lists were read once, nothing shown is not nothing waiting: the page says it
  // reads, where "no questions" and the first-run card would tell a person with work waiting
  // that there is none (for as long as the reads take, or the connection stays down). A person
  // in no workspace has nothing to read.
  const reading =
    state.connection !== 'no_workspace' &&
    (state.firstRead === undefined || userInputs.firstRead === undefined);

  return (
    <WorkspaceNames.Provider value={workspaceNames}>
      <div className="inbox-layout">
        <section className="inbox" aria-labelledby="inbox-title" ref={inboxRef}>
          <h1 id="inbox-title" className="page-title" tabIndex={-1}>
            {t('inbox.title')}
          </h1>
          {shown.length === 0 && reading ? (
            <p className="muted" data-testid="inbox-reading" role="status">
              {t('inbox.loading')}
            </p>
          ) : shown.length === 0 ? (
            <>
              <p className="muted" data-testid="inbox-empty">
                {t('inbox.empty')}
              </p>
              <FirstRun />
            </>
          ) : coarse ? null : (
            // J and K need a keyboard: a touch screen gets no hint it cannot use.
            <p className="muted triage-hint" data-testid="triage-hint">
              {t('triage.keysHint')}
            </p>
          )}
          {/* The sync reads a bounded number of pages of the pending list: it says so. The live
              region is in the page from the start: a reconnect can find more waiting, and a
              region inserted with its text is not announced. */}
          <div role="status">
            {state.pendingMore ? (
              <p className="muted" data-testid="inbox-more">
                {t('inbox.more')}
              </p>
            ) : null}
          </div>
          <BulkConsentBar selected={bulk.views} taskTitle={taskTitle} onFinished={bulk.clear} />
          <ul className="inbox-list" data-testid="inbox-list" ref={listRef}>
            {shown.map((item) => (
              <TriageRow
                key={item.key}
                item={item}
                live={live.has(item.key)}
                bulk={bulk}
                people={people}
                onEngaged={() => {
                  keep(item);
                }}
                onReleased={() => {
                  release(item.key);
                }}
              />
            ))}
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
                      headingLevel={3}
                    />
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </section>
        <TaskList state={state} bundles={items} userInputs={userInputs} />
      </div>
    </WorkspaceNames.Provider>
  );
}

/**
 * Where the focus goes once an answer took it from under the person: the
 * row still there (its answer on its way), else the row that took its place
 * (the next waiting item), else the request's card among the settled ones,
 * else the inbox's title. Several consents decided at once: their bar,
 * which reports how it went.
 */
function nextInFocus(lost: LostFocus, root: HTMLElement): HTMLElement | null {
  const bar = root.querySelector<HTMLElement>('[data-testid="bulk-bar"]');
  if (lost.triageKey === undefined && bar) return bar;
  const rows = [...root.querySelectorAll<HTMLElement>('[data-triage-key]')];
  const same = rows.find((row) => row.dataset.triageKey === lost.triageKey);
  if (same) return same;
  const next = lost.rowIndex < 0 ? undefined : rows[Math.min(lost.rowIndex, rows.length - 1)];
  if (next) return next;
  const settled =
    lost.requestId === undefined
      ? null
      : root.querySelector<HTMLElement>(
          `[data-testid="inbox-recent"] .user-input-card[data-request-id="${CSS.escape(lost.requestId)}"]`,
        );
  return settled ?? root.querySelector<HTMLElement>('#inbox-title');
}

/** Kind, task, agent, whose agent and age: the line a question's row starts with. */
function TriageMeta({ item, people }: { item: TriageItem; people: People }) {
  const { t } = useTranslation();
  return (
    <span className="triage-meta muted">
      <span className="chip triage-kind" data-testid="triage-kind" data-kind={item.kind}>
        {t(`triage.kind.${item.kind}`)}
      </span>
      <span className="inbox-task">
        <UserText text={item.task_title} />
      </span>
      <WorkspaceName item={item} />
      <AgentName item={item} />
      <TaskOwner owner={item.owner} people={people} />
      <RelativeTime at={item.created_at} className="relative-time" />
    </span>
  );
}

/** The task's workspace, for a person in several (the names map is empty otherwise). */
function WorkspaceName({ item }: { item: TriageItem }) {
  const { t } = useTranslation();
  const state = useModelState();
  const names = useContext(WorkspaceNames);
  const workspaceId = state.tasks[item.task_id]?.workspace_id;
  const name = workspaceId === undefined ? undefined : names.get(workspaceId);
  return name !== undefined ? (
    <span className="triage-workspace muted" data-testid="triage-workspace">
      {t('triage.workspace', { workspace: name })}
    </span>
  ) : null;
}

function AgentName({ item }: { item: TriageItem }) {
  const { t } = useTranslation();
  return item.agent !== '' ? (
    <span className="triage-agent muted" data-testid="triage-agent">
      {t('triage.agent', { agent: item.agent })}
    </span>
  ) : null;
}

function TriageRow(props: {
  item: TriageItem;
  live: boolean;
  bulk: ReturnType<typeof useBulkSelection>;
  people: People;
  onEngaged: () => void;
  onReleased: () => void;
}) {
  const { t } = useTranslation();
  const { item, bulk, people } = props;
  // A consent's or action's card names its kind, task and age; the row adds the agent.
  const common = {
    className: 'inbox-item triage-item',
    tabIndex: -1,
    'data-triage-key': item.key,
    'data-session-id': item.session_id,
    'data-kind': item.kind,
  };
  if (item.source === 'bundle') {
    return (
      <li
        {...common}
        className={`${common.className} triage-bundle`}
        data-testid="inbox-item"
        data-pending-id={item.key}
      >
        <BundleSummary item={item} bundle={item.bundle} people={people} />
        {item.bundle.total === 1 ? (
          <InlineQuestion
            bundle={props.live ? item.bundle : undefined}
            onEngaged={props.onEngaged}
            onReleased={props.onReleased}
          />
        ) : null}
      </li>
    );
  }
  const { entry } = item;
  const selectable = bulk.selectable(item);
  return (
    <li {...common} data-testid="inbox-user-input" data-request-id={item.key}>
      <span className="triage-row-head">
        {bulkGroupOf(item) !== undefined ? (
          <label className="bulk-select">
            <input
              type="checkbox"
              data-testid="bulk-select"
              checked={bulk.isSelected(item)}
              disabled={!selectable && !bulk.isSelected(item)}
              onChange={() => {
                bulk.toggle(item);
              }}
            />
            <span className="sr-only">
              {/* Named by task too: the same tool asks the same words in many tasks. */}
              {item.task_title === ''
                ? t('triage.bulkSelect', { title: entry.view.title })
                : t('triage.bulkSelectInTask', {
                    title: entry.view.title,
                    task: item.task_title,
                  })}
            </span>
          </label>
        ) : null}
        <WorkspaceName item={item} />
        <AgentName item={item} />
        <TaskOwner owner={item.owner} people={people} />
      </span>
      <UserInputCard entry={entry} taskTitle={item.task_title} />
    </li>
  );
}

function BundleSummary({
  item,
  bundle,
  people,
}: {
  item: TriageItem;
  bundle: BundleState;
  people: People;
}) {
  const { t } = useTranslation();
  const first = orderedQuestions(bundle)[0];
  // At this question: its session may wait on another one too, asked earlier.
  const path = questionPath(bundle.session_id, bundle.pending_id);
  return (
    <a href={path} className="inbox-link" onClick={go(path)}>
      <TriageMeta item={item} people={people} />
      <span className="inbox-prompt">
        <UserText text={first?.prompt ?? ''} />
      </span>
      {/* A count of one says nothing the prompt above it does not. */}
      {bundle.total > 1 || bundle.detached ? (
        <span className="inbox-meta muted" data-testid="inbox-meta">
          {[
            ...(bundle.total > 1 ? [t('inbox.questionCount', { count: bundle.total })] : []),
            ...(bundle.detached ? [t('inbox.detached')] : []),
          ].join(' · ')}
        </span>
      ) : null}
    </a>
  );
}

function TaskList(props: {
  state: ModelState;
  bundles: TriageItem[];
  userInputs: UserInputsState;
}) {
  const { t } = useTranslation();
  const { state } = props;
  const questions = new Set(
    props.bundles.flatMap((item) => (item.source === 'bundle' ? [item.task_id] : [])),
  );
  const requests = waitingByTask(props.userInputs);
  const workspaceNames = useContext(WorkspaceNames);
  const tasks = Object.values(state.tasks).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1));
  return (
    <nav className="task-list" aria-labelledby="tasks-title">
      <h2 id="tasks-title" className="section-title">
        {t('tasks.title')}
      </h2>
      {tasks.length > 0 ? null : state.tasksListed || state.connection === 'no_workspace' ? (
        <p className="muted" data-testid="tasks-empty">
          {t('tasks.empty')}
        </p>
      ) : (
        <p className="muted" data-testid="tasks-reading">
          {t('tasks.loading')}
        </p>
      )}
      <ul>
        {tasks.map((task) => {
          const session = sessionsOfTask(state, task.id)[0];
          const path = session ? webSessionPath(session.id) : '/';
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
                <span className="task-title">
                  <UserText text={task.title} />
                </span>
                {workspaceNames.has(task.workspace_id) ? (
                  <span className="task-workspace muted" data-testid="task-workspace">
                    {t('triage.workspace', {
                      workspace: workspaceNames.get(task.workspace_id) ?? '',
                    })}
                  </span>
                ) : null}
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
