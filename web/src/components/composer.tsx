/**
 * A session's composer: the message box and Send. A message goes with one
 * admission key per draft (a resend whose reply was lost is the same
 * message), anything typed while it is on its way stays, and the note under
 * the box says what became of the last send.
 */
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useCoarsePointer } from '../hooks/use-coarse-pointer.js';
import { useMessageHandler } from '../hooks/use-message-handler.js';
import {
  afterSent,
  clearDraft,
  draftNoteOf,
  draftOf,
  isEmptyMessage,
  keepDraft,
  messageProblem,
  withAddedText,
} from '../model/composer-draft.js';
import { admissionKeyFor } from '../model/late-answer.js';
import { MAX_MESSAGE_CHARS } from '../../../src/wire/limits.js';
import type { OfferedText } from './session-queue.js';

type ComposerStatus =
  | { phase: 'idle' | 'failed' | 'refused' | 'first_unsent' }
  /** `itemId`: the queue item the message became; `listed` once a read of the queue showed it. */
  | { phase: 'queued'; itemId: string | undefined; listed: boolean }
  /** The server refused the text itself; `problem` is its reason. */
  | { phase: 'invalid'; problem: string }
  /** A resend found an earlier text under the key: that one went, the draft did not. */
  | { phase: 'earlier'; text: string; outcome: 'sent' | 'queued' };

/** Enough of an earlier message to recognise it. */
const EARLIER_SHOWN_CHARS = 200;

export function Composer({
  sessionId,
  inputRef,
  offered,
  queuedIds,
}: {
  sessionId: string;
  inputRef: RefObject<HTMLTextAreaElement | null>;
  /** Text handed over from elsewhere on the page (a queued edit that lost its message). */
  offered: OfferedText | undefined;
  /** The session queue's items as last read. */
  queuedIds: readonly string[] | undefined;
}) {
  const { t } = useTranslation();
  const { keyStore } = useServices();
  const send = useMessageHandler(sessionId);
  const sending = useBusyAction();
  const sendButton = useRef<HTMLButtonElement>(null);
  const coarse = useCoarsePointer();
  const [text, setText] = useState(() => draftOf(keyStore, sessionId));
  const [status, setStatus] = useState<ComposerStatus>(() => ({
    phase: draftNoteOf(keyStore, sessionId) ?? 'idle',
  }));

  const taken = useRef<OfferedText | undefined>(undefined);
  useEffect(() => {
    if (!offered || taken.current === offered) return;
    taken.current = offered;
    setText((current) => {
      const next = withAddedText(current, offered.text);
      keepDraft(keyStore, sessionId, next);
      return next;
    });
  }, [keyStore, offered, sessionId]);

  const submit = async () => {
    // Sent exactly as typed: indentation and trailing lines are part of the message.
    const value = text;
    if (isEmptyMessage(value)) return;
    const problem = messageProblem(value);
    if (problem !== undefined) {
      setStatus({
        phase: 'invalid',
        problem:
          problem === 'too_long'
            ? t('composer.tooLong', { max: MAX_MESSAGE_CHARS })
            : t('composer.blank'),
      });
      return;
    }
    const scope = `composer:${sessionId}`;
    // One key per draft, the same on every retry until the server accepts it: a send whose
    // reply was lost and its resend are one message. An edit in between does not get a key
    // of its own, which could send both texts unseen; the reply tells which text went.
    const key = admissionKeyFor(keyStore, scope);
    setStatus({ phase: 'idle' });
    const outcome = await send(value, key, scope);
    if (outcome.outcome === 'failed') {
      setStatus(
        outcome.reason === 'invalid'
          ? { phase: 'invalid', problem: outcome.problem }
          : { phase: outcome.reason === 'refused' ? 'refused' : 'failed' },
      );
      return;
    }
    if (outcome.earlier !== undefined) {
      // The key is spent on the earlier text; this draft stays, and goes with a new key if sent.
      setStatus({ phase: 'earlier', text: outcome.earlier, outcome: outcome.outcome });
      return;
    }
    // Anything typed while the message was on its way stays.
    const left = afterSent(inputRef.current?.value ?? value, value);
    // An emptied box disables Send, which would drop the keyboard's focus to the page: the
    // next message is written where this one was.
    if (left === '' && document.activeElement === sendButton.current) inputRef.current?.focus();
    setText(left);
    clearDraft(keyStore, sessionId);
    if (left !== '') keepDraft(keyStore, sessionId, left);
    setStatus(
      outcome.outcome === 'queued'
        ? { phase: 'queued', itemId: outcome.queuedId, listed: false }
        : { phase: 'idle' },
    );
  };

  // "Queued" holds while the message waits: once a read of the queue has listed it and a later
  // one no longer does, it ran (or someone removed it), and the note would be stale.
  useEffect(() => {
    if (queuedIds === undefined) return;
    setStatus((current) => {
      if (current.phase !== 'queued' || current.itemId === undefined) return current;
      const there = queuedIds.includes(current.itemId);
      if (there) return current.listed ? current : { ...current, listed: true };
      return current.listed ? { phase: 'idle' } : current;
    });
  }, [queuedIds]);

  const problem = sendProblem(t, status);

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void sending.run(submit);
      }}
    >
      <textarea
        ref={inputRef}
        className="composer-input"
        data-testid="composer-input"
        aria-label={t('composer.label')}
        placeholder={t('composer.placeholder')}
        value={text}
        rows={2}
        onChange={(event) => {
          setText(event.target.value);
          keepDraft(keyStore, sessionId, event.target.value);
        }}
        onKeyDown={(event) => {
          if (event.key !== 'Enter' || event.nativeEvent.isComposing) return;
          // As in the question's custom answer: a phone's Enter is a newline, Send sends.
          const newline =
            event.shiftKey || event.altKey || (coarse && !event.ctrlKey && !event.metaKey);
          if (newline) return;
          event.preventDefault();
          void sending.run(submit);
        }}
      />
      <button
        type="submit"
        className="button button-primary"
        data-testid="composer-send"
        ref={sendButton}
        // Busy, Send keeps the keyboard's focus (never `disabled`); a second press is ignored.
        aria-disabled={sending.busy || undefined}
        disabled={!sending.busy && isEmptyMessage(text)}
      >
        {sending.busy ? t('composer.sending') : t('composer.send')}
      </button>
      {!coarse ? <p className="hint muted composer-status">{t('composer.hint')}</p> : null}
      {status.phase === 'queued' ? (
        <p className="muted composer-status">{t('composer.queued')}</p>
      ) : null}
      {problem ? (
        <p className="error composer-status" role="alert" data-testid={problem.testId}>
          {problem.text}
        </p>
      ) : null}
    </form>
  );
}

/** What became of the last send when it did not go, in the page's language; `testId` for tests. */
function sendProblem(
  t: TFunction,
  status: ComposerStatus,
): { text: string; testId?: string } | undefined {
  switch (status.phase) {
    case 'failed':
      return { text: t('composer.failed') };
    case 'refused':
      return { text: t('composer.refused') };
    case 'invalid':
      return {
        text: t('composer.invalid', { problem: status.problem }),
        testId: 'composer-invalid',
      };
    case 'earlier': {
      const text =
        status.text.length > EARLIER_SHOWN_CHARS
          ? `${status.text.slice(0, EARLIER_SHOWN_CHARS)}…`
          : status.text;
      const key = status.outcome === 'queued' ? 'composer.earlierQueued' : 'composer.earlierSent';
      return { text: t(key, { text }), testId: 'composer-earlier' };
    }
    case 'first_unsent':
      return { text: t('composer.firstUnsent'), testId: 'composer-first-unsent' };
    case 'idle':
    case 'queued':
      return undefined;
  }
}
