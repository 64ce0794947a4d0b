/**
 * `/sessions/:id`: transcript, the clarification overlay and banner, the
 * queue and the composer. Reads the model; owns only drafts.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useModelState, useServices } from '../app/services.js';
import { navigate } from '../app/router.js';
import { useClarificationGroup } from '../hooks/use-clarification-group.js';
import { useMessageHandler } from '../hooks/use-message-handler.js';
import { admissionKeyFor } from '../model/late-answer.js';
import {
  activeBundleOfSession,
  questionOfRow,
  transcriptOf,
  type BundleState,
} from '../model/read-model.js';
import type { MessageView, QueueItemView } from '../model/types.js';
import { ClarificationOverlay } from './clarification-overlay.js';
import { ClarificationStatusBanner } from './clarification-status-banner.js';

export function SessionView({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const { sync } = useServices();
  const state = useModelState();
  const session = state.sessions[sessionId];
  const task = session ? state.tasks[session.task_id] : undefined;
  const live = activeBundleOfSession(state, sessionId);
  const group = useClarificationGroup(live);
  const messages = transcriptOf(state, sessionId);
  const endRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    sync.openSession(sessionId);
    return () => {
      sync.closeSession(sessionId);
    };
  }, [sessionId, sync]);

  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [messages.length]);

  const showOverlay =
    live !== undefined && group.state.phase !== 'resolved' && group.state.phase !== 'late';

  return (
    <div className="session-view">
      <header className="page-header">
        <a
          href="/"
          className="button button-link"
          onClick={(event) => {
            event.preventDefault();
            navigate('/');
          }}
        >
          ← {t('nav.backToInbox')}
        </a>
        <h1 className="page-title">{task?.title ?? t('session.title')}</h1>
        <span
          className="state-chip"
          data-testid="session-state"
          data-state={session?.state ?? 'unknown'}
        >
          {t(`session.state.${session?.state ?? 'unknown'}`)}
        </span>
      </header>
      <section className="transcript" aria-label={t('session.transcript')} data-testid="transcript">
        {messages.length === 0 ? <p className="muted">{t('session.empty')}</p> : null}
        {messages.map((message) => (
          <TranscriptRow key={message.id} message={message} active={live} />
        ))}
        <div ref={endRef} />
      </section>
      <div className="session-dock">
        <ClarificationStatusBanner group={group} />
        {showOverlay ? <ClarificationOverlay group={group} /> : null}
        <QueueList
          sessionId={sessionId}
          revision={(session?.revision ?? -1) * 1000 + (state.queueTicks[sessionId] ?? 0)}
        />
        <Composer sessionId={sessionId} />
      </div>
    </div>
  );
}

function TranscriptRow({
  message,
  active,
}: {
  message: MessageView;
  active: BundleState | undefined;
}) {
  const { t } = useTranslation();
  const row = questionOfRow(message);
  if (row) {
    // The active bundle is answered in the overlay, not in the transcript.
    if (active && row.pendingId === active.pending_id) return null;
    const response = message.metadata.response as
      { selected_options?: string[]; custom_text?: string } | undefined;
    const labels = (response?.selected_options ?? []).map(
      (id) => row.question.options.find((option) => option.option_id === id)?.label ?? id,
    );
    const custom = response?.custom_text ? [`“${response.custom_text}”`] : [];
    const summary = {
      pending: t('transcript.pending'),
      answered: t('transcript.answered', {
        answer: [...labels, ...custom].join(', ') || t('transcript.noSelection'),
      }),
      rejected: t('transcript.skipped'),
      expired: t('transcript.expired'),
      cancelled: t('transcript.cancelled'),
    }[row.question.status];
    return (
      <article className="message message-question" data-status={row.question.status}>
        <p className="muted">{row.question.prompt}</p>
        <p className="question-outcome">{summary}</p>
      </article>
    );
  }
  if (message.type === 'tool_call' && message.content === '') return null;
  const author =
    message.author === 'user' || message.author === 'agent' ? message.author : 'system';
  return (
    <article className={`message message-${author}`} data-type={message.type} data-testid="message">
      <span className="message-author">{t(`session.author.${author}`)}</span>
      <p className="message-content">{message.content}</p>
    </article>
  );
}

function QueueList({ sessionId, revision }: { sessionId: string; revision: number }) {
  const { t } = useTranslation();
  const { api } = useServices();
  const [items, setItems] = useState<QueueItemView[]>([]);

  const load = useCallback(async () => {
    const result = await api.queue(sessionId);
    if (result.ok) setItems(result.value.items);
  }, [api, sessionId]);

  useEffect(() => {
    void load();
  }, [load, revision]);

  if (items.length === 0) return null;
  return (
    <section className="queue" aria-label={t('queue.title')} data-testid="queue">
      <h2 className="section-title">{t('queue.title')}</h2>
      <ul>
        {items.map((item) => (
          <li key={item.id} className="queue-item">
            {item.owner === 'follow_up' ? (
              <span className="chip">{t('queue.followUp')}</span>
            ) : null}
            <span className="queue-text">{item.text}</span>
            <button
              type="button"
              className="button"
              onClick={() => {
                void api.removeQueued(sessionId, item.id).then(load);
              }}
            >
              {t('queue.remove')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

type ComposerStatus = 'idle' | 'sending' | 'queued' | 'failed' | 'refused';

function Composer({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const { keyStore } = useServices();
  const send = useMessageHandler(sessionId);
  const draftKey = `clarion.draft.${sessionId}`;
  const [text, setText] = useState(() => keyStore.getItem(draftKey) ?? '');
  const [status, setStatus] = useState<ComposerStatus>('idle');

  const submit = async () => {
    const value = text.trim();
    if (value === '' || status === 'sending') return;
    const scope = `composer:${sessionId}`;
    // One key per draft: the same key on every retry until the server accepts it.
    const key = admissionKeyFor(keyStore, scope);
    setStatus('sending');
    const outcome = await send(value, key, scope);
    if (outcome.outcome === 'failed') {
      setStatus(outcome.reason === 'refused' ? 'refused' : 'failed');
      return;
    }
    setText('');
    keyStore.removeItem(draftKey);
    setStatus(outcome.outcome === 'queued' ? 'queued' : 'idle');
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <textarea
        className="composer-input"
        data-testid="composer-input"
        aria-label={t('composer.label')}
        placeholder={t('composer.placeholder')}
        value={text}
        rows={2}
        onChange={(event) => {
          setText(event.target.value);
          keyStore.setItem(draftKey, event.target.value);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void submit();
          }
        }}
      />
      <button
        type="submit"
        className="button button-primary"
        data-testid="composer-send"
        disabled={status === 'sending'}
      >
        {status === 'sending' ? t('composer.sending') : t('composer.send')}
      </button>
      {status === 'queued' ? <p className="muted composer-status">{t('composer.queued')}</p> : null}
      {status === 'failed' ? (
        <p className="error composer-status" role="alert">
          {t('composer.failed')}
        </p>
      ) : null}
      {status === 'refused' ? (
        <p className="error composer-status" role="alert">
          {t('composer.refused')}
        </p>
      ) : null}
    </form>
  );
}
