/**
 * `UndoButtons`: Undo and Send now, the pair every answer shows during its
 * undo window, whether it answers a question or a consent, action or form.
 */
import { useTranslation } from 'react-i18next';

export function UndoButtons(props: { undo: () => void; sendNow: () => void }) {
  const { t } = useTranslation();
  return (
    <span className="undo-buttons">
      <button
        type="button"
        className="button button-primary"
        data-testid="undo"
        onClick={props.undo}
      >
        {t('decide.undo.undo')}
      </button>
      <button type="button" className="button" data-testid="send-now" onClick={props.sendNow}>
        {t('decide.undo.sendNow')}
      </button>
    </span>
  );
}
