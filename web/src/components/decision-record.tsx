/**
 * What the transcript shows of a person's decision: who made it and where,
 * under a question's outcome, and the row a consent, action or form decision
 * leaves behind once its request is gone from the registry.
 */
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { CONSENT_OPTION_KIND_WORDS, saysOnly } from '../../../src/wire/consent-words.js';
import { useMe } from '../hooks/use-me.js';
import { showBidiControls } from '../model/bidi.js';
import { isMe, parseResponder } from '../model/responder.js';
import type { MessageView } from '../model/types.js';

export function DecidedBy({ value }: { value: unknown }) {
  const { t } = useTranslation();
  const responder = parseResponder(value);
  if (!responder) return null;
  return (
    <p className="muted decided-by" data-testid="decided-by" data-surface={responder.surface}>
      {t('decision.by', {
        name: responder.name,
        surface: t(`decision.surface.${responder.surface}`),
      })}
    </p>
  );
}

function useDecisionSummary(metadata: Record<string, unknown>): string {
  const { t } = useTranslation();
  const me = useMe();
  const title = showBidiControls(typeof metadata.title === 'string' ? metadata.title : '');
  if (metadata.kind === 'form') {
    // A form has no option: the row says who sent or declined it.
    const responder = parseResponder(metadata.responded_by);
    const sent = metadata.decision === 'accept';
    if (isMe(responder, me)) {
      return sent ? t('decision.formSentYou', { title }) : t('decision.formDeclinedYou', { title });
    }
    const name = responder ? showBidiControls(responder.name) : t('decision.someone');
    return sent
      ? t('decision.formSent', { name, title })
      : t('decision.formDeclined', { name, title });
  }
  if (metadata.kind === 'action') {
    return metadata.decision === 'done'
      ? t('decision.done', { title })
      : t('decision.skip', { title });
  }
  const option = consentOptionText(t, metadata);
  if (metadata.remembered === true) return t('decision.remembered', { option, title });
  return metadata.option_kind === 'allow_always'
    ? t('decision.ruleSet', { option, title })
    : t('decision.consent', { option, title });
}

const KINDS = Object.keys(CONSENT_OPTION_KIND_WORDS) as (keyof typeof CONSENT_OPTION_KIND_WORDS)[];

/**
 * What the chosen option did, in Clarion's words by its kind, with the
 * agent's label beside it when it says more: an agent names its options.
 */
function consentOptionText(t: TFunction, metadata: Record<string, unknown>): string {
  const label = typeof metadata.option_label === 'string' ? metadata.option_label : '';
  const kind = KINDS.find((known) => known === metadata.option_kind);
  if (kind === undefined) return showBidiControls(label);
  const words = t(`userInput.optionKind.${kind}`);
  return saysOnly(kind, label)
    ? words
    : t('decision.withAgentLabel', { option: words, label: showBidiControls(label) });
}

export function UserInputDecisionRow({ message }: { message: MessageView }) {
  const { t } = useTranslation();
  const summary = useDecisionSummary(message.metadata);
  const reason = typeof message.metadata.reason === 'string' ? message.metadata.reason : '';
  return (
    <article
      className="message message-decision"
      data-testid="user-input-decision"
      data-kind={String(message.metadata.kind)}
    >
      <p className="message-content">{summary}</p>
      {reason === '' ? null : (
        <p className="decision-reason" data-testid="decision-reason">
          {t('rejectReason.transcript', { reason })}
        </p>
      )}
      <DecidedBy value={message.metadata.responded_by} />
    </article>
  );
}
