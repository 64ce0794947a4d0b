/**
 * The consent part of a user-input card: the tool the agent wants to run, its
 * options as buttons (the agent's labels, with the option's kind; a label that
 * says only what the kind's words say gives way to them), and once
 * settled what happened. A timeout, a sweep or a replacement reads clearly
 * differently from a person choosing "reject".
 */
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConsentDetail, ConsentView } from '../model/types.js';
import { saysOnly } from '../../../src/wire/consent-words.js';
import { useMe } from '../hooks/use-me.js';
import { showBidiControls } from '../model/bidi.js';
import { isMe } from '../model/responder.js';
import { DecisionConfirm } from './decision-confirm.js';
import type { UserInputBodyProps } from './user-input-card.js';
import { UserText } from './user-text.js';

export function ConsentBody(props: UserInputBodyProps<ConsentView>) {
  const { t } = useTranslation();
  const me = useMe();
  const { view, outcome } = props;
  // A Reject is deliberate: confirmed first, then held for the undo window.
  const [rejecting, setRejecting] = useState<string>();
  const confirming = view.options.find((option) => option.option_id === rejecting);
  return (
    <>
      <p className="user-input-detail muted">{t('userInput.tool', { tool: view.tool_key })}</p>
      <ToolDetails details={view.details} />
      {props.choices && confirming && !props.busy ? (
        <DecisionConfirm
          prompt={t('rejectReason.prompt')}
          placeholder={t('rejectReason.placeholder')}
          yes={
            saysOnly(confirming.kind, confirming.label)
              ? t(`userInput.optionKind.${confirming.kind}`)
              : showBidiControls(confirming.label)
          }
          withReason
          onConfirm={(reason) => {
            setRejecting(undefined);
            const { option_id } = confirming;
            props.respondAfterUndo(reason === '' ? { option_id } : { option_id, reason });
          }}
          onCancel={() => {
            setRejecting(undefined);
          }}
        />
      ) : null}
      {props.choices && !(confirming && !props.busy) ? (
        <div className="consent-options" role="group" aria-label={showBidiControls(view.title)}>
          {view.options.map((option) => {
            const chosen =
              props.pending !== undefined &&
              'option_id' in props.pending &&
              props.pending.option_id === option.option_id;
            return (
              <button
                key={option.option_id}
                type="button"
                className="button consent-option"
                data-testid="consent-option"
                data-option-id={option.option_id}
                data-kind={option.kind}
                // Not `disabled` while an answer goes: the keyboard's focus stays where it pressed.
                aria-disabled={props.busy}
                aria-busy={chosen}
                onClick={() => {
                  if (props.busy) return;
                  if (option.kind === 'reject_once' || option.kind === 'reject_always') {
                    setRejecting(option.option_id);
                  } else {
                    props.respond({ option_id: option.option_id });
                  }
                }}
              >
                {saysOnly(option.kind, option.label) ? (
                  <span className="consent-option-label">
                    {t(`userInput.optionKind.${option.kind}`)}
                  </span>
                ) : (
                  <>
                    <span className="consent-option-label">
                      <UserText text={option.label} />
                    </span>
                    <span className="consent-option-kind">
                      {t(`userInput.optionKind.${option.kind}`)}
                    </span>
                  </>
                )}
              </button>
            );
          })}
        </div>
      ) : null}
      {outcome.kind === 'waiting' ? null : (
        <p className="user-input-outcome" data-testid="user-input-outcome">
          {consentOutcomeText(t, outcome, isMe(view.responded_by, me) ? null : view.responded_by)}
        </p>
      )}
    </>
  );
}

/** `setBy`: who set the rule that answered, unless it is the reader ("you"). */
function consentOutcomeText(
  t: TFunction,
  outcome: UserInputBodyProps<ConsentView>['outcome'],
  setBy: ConsentView['responded_by'],
): string {
  switch (outcome.kind) {
    case 'chosen': {
      const option = showBidiControls(outcome.option.label);
      // A rule answers with the agent's allow-once: what the person chose was Clarion's "always".
      if (outcome.remembered) {
        return setBy === null
          ? t('userInput.outcome.remembered')
          : t('userInput.outcome.rememberedBy', { name: showBidiControls(setBy.name) });
      }
      if (outcome.reason !== null)
        return t('rejectReason.outcome', { option, reason: outcome.reason });
      return outcome.allowed
        ? t('userInput.outcome.allowed', { option })
        : t('userInput.outcome.rejected', { option });
    }
    case 'timed_out':
      return t('userInput.outcome.consentTimedOut');
    case 'swept':
      return t('userInput.outcome.swept');
    case 'agent_exited':
      return t('userInput.outcome.agentExited');
    case 'server_stopped':
      return t('userInput.outcome.serverStopped');
    case 'superseded':
      return t('userInput.outcome.superseded');
    default:
      return t('userInput.outcome.closed');
  }
}

/** The command and the changes the agent described, so the decision is made on what will run. */
function ToolDetails({ details }: { details: readonly ConsentDetail[] }) {
  const { t } = useTranslation();
  if (details.length === 0) return null;
  return (
    <div className="consent-details" aria-label={t('userInput.toolDetails')} role="group">
      {details.map((detail, index) =>
        detail.type === 'text' ? (
          <pre key={index} className="consent-detail" data-testid="consent-detail">
            <UserText text={detail.text} />
          </pre>
        ) : (
          <figure key={index} className="consent-diff" data-testid="consent-diff">
            <figcaption>
              {detail.old_text === null
                ? t('userInput.newFile', { path: detail.path })
                : t('userInput.diffOf', { path: detail.path })}
            </figcaption>
            <pre className="consent-detail">
              {diffLines(detail).map((line, lineIndex) => (
                <span key={lineIndex} className={`diff-line diff-${line.kind}`}>
                  <UserText text={line.text} />
                  {'\n'}
                </span>
              ))}
            </pre>
          </figure>
        ),
      )}
    </div>
  );
}

/** Old lines then new ones, marked; a person reads a short change at a glance, no diff algorithm needed. */
function diffLines(detail: Extract<ConsentDetail, { type: 'diff' }>) {
  const removed = (detail.old_text ?? '').split('\n').filter((line) => line !== '');
  const added = detail.new_text.split('\n');
  return [
    ...removed.map((line) => ({ kind: 'removed', text: `- ${line}` })),
    ...added.map((line) => ({ kind: 'added', text: `+ ${line}` })),
  ];
}
