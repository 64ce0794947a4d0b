/**
 * The action part of a user-input card: what to do, where (a web link opens
 * in a new tab; any other scheme is shown as text, never linked), and Done or
 * Skip. After the answer it shows the follow-up message the server will send
 * for the person once the agent's turn ends, and whether it was sent.
 */
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActionView } from '../model/types.js';
import { safeHttpUrl, type UserInputOutcome } from '../model/user-inputs.js';
import { DecisionConfirm } from './decision-confirm.js';
import type { UserInputBodyProps } from './user-input-card.js';
import { UserText } from './user-text.js';

export function ActionBody(props: UserInputBodyProps<ActionView>) {
  const { t } = useTranslation();
  const { view, outcome } = props;
  // A Skip is deliberate: confirmed (with an optional reason), then held for the undo window.
  const [skipping, setSkipping] = useState(false);
  const href = safeHttpUrl(view.url);
  const pendingDecision =
    props.pending !== undefined && 'decision' in props.pending ? props.pending.decision : undefined;
  return (
    <>
      <p className="user-input-instructions" data-testid="action-instructions">
        <UserText text={view.instructions} />
      </p>
      {href !== undefined ? (
        <a
          className="button user-input-link"
          data-testid="action-link"
          href={href}
          target="_blank"
          rel="noopener noreferrer"
        >
          {t('userInput.openLink')} <span className="user-input-url">{new URL(href).host}</span>
        </a>
      ) : view.url !== null ? (
        <p className="user-input-url muted" data-testid="action-url-text">
          <UserText text={view.url} />
        </p>
      ) : null}
      {props.choices && skipping && !props.busy ? (
        <DecisionConfirm
          prompt={t('decide.skipActionConfirm')}
          yes={t('decide.skipActionYes')}
          withReason
          onConfirm={(reason) => {
            setSkipping(false);
            props.respondAfterUndo(
              reason === '' ? { decision: 'skip' } : { decision: 'skip', reason },
            );
          }}
          onCancel={() => {
            setSkipping(false);
          }}
        />
      ) : props.choices ? (
        <div className="action-buttons">
          <button
            type="button"
            className="button button-primary"
            data-testid="action-done"
            // Not `disabled` while an answer goes: the keyboard's focus stays where it pressed.
            aria-disabled={props.busy}
            aria-busy={pendingDecision === 'done'}
            onClick={() => {
              if (props.busy) return;
              props.respond({ decision: 'done' });
            }}
          >
            {t('userInput.done')}
          </button>
          <button
            type="button"
            className="button"
            data-testid="action-skip"
            aria-disabled={props.busy}
            aria-busy={pendingDecision === 'skip'}
            onClick={() => {
              if (props.busy) return;
              setSkipping(true);
            }}
          >
            {t('userInput.skip')}
          </button>
        </div>
      ) : null}
      <ActionOutcome t={t} outcome={outcome} />
    </>
  );
}

function ActionOutcome({ t, outcome }: { t: TFunction; outcome: UserInputOutcome }) {
  switch (outcome.kind) {
    case 'waiting':
      return null;
    case 'follow_up_pending':
    case 'follow_up_sent':
    case 'follow_up_dropped': {
      const decided = t(
        outcome.decision === 'done' ? 'userInput.outcome.done' : 'userInput.outcome.skipped',
      );
      return (
        <div className="user-input-outcome" data-testid="user-input-outcome">
          <p>
            <strong>{decided}</strong> {followUpStatus(t, outcome)}
          </p>
          <blockquote className="follow-up-text" data-testid="follow-up-text">
            {outcome.text}
          </blockquote>
        </div>
      );
    }
    case 'timed_out':
      return <Outcome text={t('userInput.outcome.actionTimedOut')} />;
    case 'swept':
      return <Outcome text={t('userInput.outcome.swept')} />;
    case 'agent_exited':
      return <Outcome text={t('userInput.outcome.agentExited')} />;
    case 'server_stopped':
      return <Outcome text={t('userInput.outcome.serverStopped')} />;
    case 'superseded':
      return <Outcome text={t('userInput.outcome.superseded')} />;
    case 'chosen':
    case 'closed':
      return <Outcome text={t('userInput.outcome.closed')} />;
  }
}

type FollowUpOutcome = Extract<
  UserInputOutcome,
  { kind: 'follow_up_pending' | 'follow_up_sent' | 'follow_up_dropped' }
>;

function followUpStatus(t: TFunction, outcome: FollowUpOutcome): string {
  switch (outcome.kind) {
    case 'follow_up_pending':
      return t(
        outcome.queued ? 'userInput.outcome.followUpQueued' : 'userInput.outcome.followUpPending',
      );
    case 'follow_up_sent':
      return t('userInput.outcome.followUpSent');
    case 'follow_up_dropped':
      return t('userInput.outcome.followUpDropped');
  }
}

function Outcome({ text }: { text: string }) {
  return (
    <p className="user-input-outcome" data-testid="user-input-outcome">
      {text}
    </p>
  );
}
