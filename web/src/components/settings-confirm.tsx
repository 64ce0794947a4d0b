/**
 * `SettingsConfirm`: the in-page second step of a Settings action that
 * cannot be undone (remove a channel, revoke a token). It says what is lost,
 * takes focus so a keyboard reaches it at once, and Escape or "Keep it"
 * backs out and hands focus back to the button that opened it.
 */
import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';

export function SettingsConfirm(props: {
  /** What the action loses, in the person's words. */
  prompt: string;
  yes: string;
  testId: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const promptId = useId();
  const keep = useRef<HTMLButtonElement>(null);
  // The button that opened this step, captured before focus moves here.
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    opener.current = document.activeElement;
    keep.current?.focus();
  }, []);

  const cancel = () => {
    props.onCancel();
    const back = opener.current;
    if (back instanceof HTMLElement)
      queueMicrotask(() => {
        if (back.isConnected) back.focus();
      });
  };

  return (
    <div
      className="settings-confirm"
      role="group"
      aria-labelledby={promptId}
      data-testid={props.testId}
      onKeyDown={(event) => {
        if (event.key === 'Escape') cancel();
      }}
    >
      <p id={promptId}>{props.prompt}</p>
      <div className="skip-confirm-actions">
        <button type="button" className="button button-danger" onClick={props.onConfirm}>
          {props.yes}
        </button>
        <button type="button" className="button" ref={keep} onClick={cancel}>
          {t('settings.keep')}
        </button>
      </div>
    </div>
  );
}
