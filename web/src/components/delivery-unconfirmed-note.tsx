/**
 * The transcript note Clarion writes when a restart cut off the turn that
 * received an answer: the agent may not have acted on it. It shows the answer
 * as the ordinary message it would become and offers to send it again
 * through the composer's admission path. The note's admission key is the
 * server's, one per bundle, so a second click or another tab admits nothing
 * new; the question itself is never touched.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMessageHandler } from '../hooks/use-message-handler.js';
import type { DeliveryUnconfirmedNote, MessageView } from '../model/types.js';

type ResendState = 'idle' | 'sending' | 'sent' | 'queued' | 'failed' | 'refused';

export function DeliveryUnconfirmedNoteRow({
  message,
  note,
}: {
  message: MessageView;
  note: DeliveryUnconfirmedNote;
}) {
  const { t } = useTranslation();
  const send = useMessageHandler(message.session_id);
  const [state, setState] = useState<ResendState>('idle');
  const busy = state === 'sending';

  const resend = async () => {
    if (busy) return;
    setState('sending');
    const outcome = await send(
      note.resend_text,
      note.resend_admission_key,
      note.resend_admission_key,
    );
    if (outcome.outcome === 'failed') {
      setState(outcome.reason === 'refused' ? 'refused' : 'failed');
      return;
    }
    setState(outcome.outcome);
  };

  return (
    <article
      className="message message-system delivery-unconfirmed"
      data-testid="delivery-unconfirmed"
      data-pending-id={note.clarification_pending_id}
    >
      <span className="message-author">{t('session.author.system')}</span>
      <p className="delivery-unconfirmed-title">{t('deliveryUnconfirmed.title')}</p>
      <p className="message-content">{t('deliveryUnconfirmed.note')}</p>
      <figure className="delivery-unconfirmed-answer">
        <figcaption className="muted">{t('deliveryUnconfirmed.answer')}</figcaption>
        <blockquote className="message-content" data-testid="delivery-unconfirmed-text">
          {note.resend_text}
        </blockquote>
      </figure>
      <button
        type="button"
        className="button"
        data-testid="delivery-unconfirmed-resend"
        // Not `disabled`: that would drop the keyboard's focus on it to the page while it sends.
        aria-disabled={busy}
        aria-busy={busy}
        onClick={() => void resend()}
      >
        {busy ? <span className="spinner" aria-hidden="true" /> : null}
        {busy ? t('deliveryUnconfirmed.sending') : t('deliveryUnconfirmed.resend')}
      </button>
      {state === 'sent' || state === 'queued' ? (
        <p
          className="muted"
          role="status"
          data-testid="delivery-unconfirmed-status"
          data-state={state}
        >
          {t(`deliveryUnconfirmed.${state}`)}
        </p>
      ) : null}
      {state === 'failed' || state === 'refused' ? (
        <p
          className="error"
          role="alert"
          data-testid="delivery-unconfirmed-status"
          data-state={state}
        >
          {t(`deliveryUnconfirmed.${state}`)}
        </p>
      ) : null}
    </article>
  );
}
