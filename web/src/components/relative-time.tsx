/** A `<time>` with its age as the label and the full local date on hover. */
import { useTranslation } from 'react-i18next';
import { useNow } from '../hooks/use-now.js';
import { relativeLabel, timestampMs } from '../model/relative-time.js';

const REFRESH_MS = 30_000;

export function RelativeTime({ at, className }: { at: string; className?: string }) {
  const { i18n } = useTranslation();
  const now = useNow(REFRESH_MS);
  const language = i18n.resolvedLanguage ?? 'en';
  const ms = timestampMs(at);
  if (Number.isNaN(ms)) return null;
  return (
    <time
      className={className ?? 'relative-time muted'}
      dateTime={new Date(ms).toISOString()}
      title={new Date(ms).toLocaleString(language)}
    >
      {relativeLabel(at, now, language)}
    </time>
  );
}
