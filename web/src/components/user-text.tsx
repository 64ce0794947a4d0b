/**
 * `UserText`: text an agent or a person supplied, shown as it is written.
 * Isolated (`<bdi>`), so right-to-left text cannot reorder what surrounds
 * it; any bidi control inside is shown as a visible ⟨U+202E⟩ marker, not
 * obeyed (`model/bidi.ts`), so the text cannot be made to read as something
 * else.
 */
import { useTranslation } from 'react-i18next';
import { splitBidiControls } from '../model/bidi.js';

export function UserText({ text }: { text: string }) {
  const { t } = useTranslation();
  const pieces = splitBidiControls(text);
  if (pieces.every((piece) => piece.kind === 'text')) return <bdi>{text}</bdi>;
  return (
    <bdi>
      {pieces.map((piece, index) =>
        piece.kind === 'text' ? (
          piece.text
        ) : (
          <span
            key={index}
            className="bidi-control"
            data-testid="bidi-control"
            title={t('app.bidiControl', { code: piece.code })}
          >
            ⟨{piece.code}⟩
          </span>
        ),
      )}
    </bdi>
  );
}
