/** Why an action on the People page did not happen, in the person's language. */
import { useTranslation } from 'react-i18next';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import type { Refusal } from '../model/people.js';

/** A refusal as its sentence: only `lastOwner` and `invalid` carry the server's words. */
export function useRefusalText(): (refusal: Refusal) => string {
  const { t } = useTranslation();
  const reason = useFailureReason();
  return (refusal) => {
    switch (refusal.key) {
      case 'lastOwner':
      case 'invalid':
        return t(`people.refused.${refusal.key}`, { error: refusal.error });
      case 'other':
        return t('people.refused.other', { error: reason(refusal.failure) });
      default:
        return t(`people.refused.${refusal.key}`);
    }
  };
}

export function RefusalNote(props: { refusal: Refusal | undefined; testId: string }) {
  const text = useRefusalText();
  if (props.refusal === undefined) return null;
  return (
    <p className="error" role="alert" data-testid={props.testId}>
      {text(props.refusal)}
    </p>
  );
}
