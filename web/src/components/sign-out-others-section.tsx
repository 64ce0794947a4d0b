/**
 * Settings → "Sign out other devices": ends the person's sign-in on every
 * other browser (a lost phone keeps its session for 30 days otherwise),
 * after a confirmation in the page, and says how many ended. This browser
 * stays signed in; the others' open tabs go to the signed-out page as their
 * events sockets close.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import { signOutOtherDevices } from '../model/credentials-api.js';
import { ConfirmStep } from './confirm-step.js';

type Step =
  | { kind: 'idle' }
  | { kind: 'asking'; pending: boolean; error?: string }
  | { kind: 'done'; ended: number };

export function SignOutOthersSection() {
  const { t } = useTranslation();
  const reason = useFailureReason();
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const opener = useRef<HTMLButtonElement>(null);
  // Done, the step that had the focus is gone: it goes back to the button that opened it, not
  // to the page's body (focus the person moved elsewhere stays there).
  const done = step.kind === 'done';
  useEffect(() => {
    const active = document.activeElement;
    if (done && (active === null || active === document.body)) opener.current?.focus();
  }, [done]);

  async function signOutOthers(): Promise<void> {
    setStep({ kind: 'asking', pending: true });
    const result = await signOutOtherDevices();
    setStep(
      result.ok
        ? { kind: 'done', ended: result.value.ended }
        : { kind: 'asking', pending: false, error: reason(result) },
    );
  }

  return (
    <section
      className="settings-section"
      data-testid="sign-out-others"
      aria-labelledby="sign-out-others-title"
    >
      <h2 id="sign-out-others-title" className="section-title">
        {t('access.others.title')}
      </h2>
      <p className="muted">{t('access.others.explain')}</p>
      {step.kind === 'asking' ? (
        <ConfirmStep
          testId="sign-out-others-confirm"
          prompt={t('access.others.prompt')}
          yes={t('access.others.confirm')}
          keep={t('access.others.keep')}
          yesTestId="sign-out-others-yes"
          pending={step.pending}
          opener={opener}
          {...(step.error === undefined
            ? {}
            : { error: t('access.others.failed', { error: step.error }) })}
          onConfirm={() => void signOutOthers()}
          onKeep={() => {
            setStep({ kind: 'idle' });
          }}
        />
      ) : (
        <button
          ref={opener}
          type="button"
          className="button"
          data-testid="sign-out-others-start"
          onClick={() => {
            setStep({ kind: 'asking', pending: false });
          }}
        >
          {t('access.others.start')}
        </button>
      )}
      {/* Always there, so a screen reader hears the result as it is filled in. */}
      <p role="status" data-testid="sign-out-others-result">
        {step.kind !== 'done'
          ? null
          : step.ended === 0
            ? t('access.others.none')
            : t('access.others.ended', { count: step.ended })}
      </p>
    </section>
  );
}
