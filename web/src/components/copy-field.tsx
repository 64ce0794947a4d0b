/**
 * A secret or a command shown as read-only text with a Copy button. The
 * clipboard API exists only in secure contexts (not on a plain-HTTP LAN
 * address), so a failed copy selects the text and says to copy it by hand.
 */
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

export function CopyField(props: { value: string; label: string; testId: string }) {
  const { t } = useTranslation();
  const input = useRef<HTMLTextAreaElement>(null);
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(props.value);
      setState('copied');
    } catch {
      input.current?.select();
      setState('failed');
    }
  }

  return (
    <div className="copy-field">
      <textarea
        ref={input}
        className="copy-field-text"
        data-testid={props.testId}
        aria-label={props.label}
        readOnly
        // The stylesheet sizes the field to its text; this guess is for browsers that cannot.
        rows={Math.min(4, Math.ceil(props.value.length / 60))}
        value={props.value}
        onFocus={(event) => {
          event.currentTarget.select();
        }}
      />
      <button type="button" className="button" onClick={() => void copy()}>
        {state === 'copied' ? t('access.copied') : t('access.copy')}
      </button>
      {state === 'failed' ? (
        <p className="muted" role="status">
          {t('access.copyFailed')}
        </p>
      ) : null}
    </div>
  );
}
