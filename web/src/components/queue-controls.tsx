/**
 * The session queue's controls beyond one message's Edit and Remove
 * (DESIGN §7): each person's message's Move up and Move down. Follow-ups run
 * after people's messages and never move.
 */
import { useTranslation } from 'react-i18next';
import { namePreview, type MoveDirection } from '../model/queue-controls.js';

/** A person's message's Move up and Move down; named after the message, as screen readers list them. */
export function QueueMoveButtons(props: {
  text: string;
  canMoveUp: boolean;
  canMoveDown: boolean;
  onMove: (direction: MoveDirection) => void;
}) {
  const { t } = useTranslation();
  const text = namePreview(props.text);
  const button = (direction: MoveDirection, can: boolean) => (
    <button
      type="button"
      className="button"
      data-testid={`queue-move-${direction}`}
      data-move={direction}
      aria-label={t(direction === 'up' ? 'queue.moveUpNamed' : 'queue.moveDownNamed', { text })}
      disabled={!can}
      onClick={() => {
        props.onMove(direction);
      }}
    >
      {t(direction === 'up' ? 'queue.moveUp' : 'queue.moveDown')}
    </button>
  );
  return (
    <>
      {button('up', props.canMoveUp)}
      {button('down', props.canMoveDown)}
    </>
  );
}
