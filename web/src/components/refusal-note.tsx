/** Why an action on the People page did not happen, in the person's language. */
import { useTranslation } from 'react-i18next';
import type { Refusal } from '../model/people.js';

export function RefusalNote(props: { refusal: Refusal | undefined; testId: string }) {
  const { t } = useTranslation();
  if (props.refusal === undefined) return null;
  return (
    <p className="error" role="alert" data-testid={props.testId}>
      {t(`people.refused.${props.refusal.key}`, { error: props.refusal.error })}
    </p>
  );
}
