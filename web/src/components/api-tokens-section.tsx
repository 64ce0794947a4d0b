/**
 * Settings → "API tokens": the person's own tokens by name, creation and
 * last use; create one (its secret is shown once, with Copy) and revoke one
 * (after an in-page confirmation: whatever uses the token is cut off).
 * The list is read from the server after every change, here or on another
 * device (`tokens_changed`), never patched by guesswork. A refusal says the server's reason, and goes once the person
 * edits the name or moves on to another part of the page.
 */
import { useCallback, useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import type { TokenView } from '../../../src/wire/index.js';
import { MAX_TOKEN_NAME_CHARS } from '../../../src/wire/limits.js';
import type { ApiFailure } from '../model/api.js';
import { useFocusOnOutcome } from '../hooks/use-focus-on-outcome.js';
import { useRefocusAfterRemoval } from '../hooks/use-refocus-after-removal.js';
import { createToken, listTokens, revokeToken } from '../model/credentials-api.js';
import { dateTimeLabel } from '../model/relative-time.js';
import { fieldProblems } from '../model/tasks-api.js';
import { CopyField } from './copy-field.js';
import { ConfirmStep } from './confirm-step.js';
import { UserText } from './user-text.js';

export function ApiTokensSection(props: { refreshKey?: number }) {
  const { t, i18n } = useTranslation();
  const reason = useFailureReason();
  const [tokens, setTokens] = useState<TokenView[] | undefined>();
  const [name, setName] = useState('');
  const { busy, run } = useBusyAction();
  // One revoke at a time across the list; its Revoke holds the focus while it goes.
  const revoking = useBusyAction();
  const [secret, setSecret] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<string | undefined>();
  const sectionRef = useRef<HTMLElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const createdRef = useRef<HTMLParagraphElement>(null);
  const setRefocus = useRefocusAfterRemoval(listRef, '[data-testid="api-token"]', nameRef, tokens);

  // Focus arriving anywhere outside the section is the person moving on. Not `blur`: a control
  // disabled or removed under the focus drops it to the page, and nothing blurs after that.
  useEffect(() => {
    if (error === undefined) return;
    const movedOn = (event: FocusEvent) => {
      const section = sectionRef.current;
      if (section && event.target instanceof Node && !section.contains(event.target))
        setError(undefined);
    };
    document.addEventListener('focusin', movedOn);
    return () => {
      document.removeEventListener('focusin', movedOn);
    };
  }, [error]);

  /**
   * The name's problems in the server's words: the field's length limit and the empty name are
   * kept from being sent, so what is left (a hidden control character, say) is a reason the
   * catalog cannot know. Anything else is said in the page's language.
   */
  const createRefusal = (failure: ApiFailure): string => {
    const problems = Object.values(fieldProblems(failure));
    return problems.length > 0 ? problems.join('; ') : reason(failure);
  };

  // Reads overlap (two frames, a frame and a revoke here) and may answer out of order: only the
  // newest one's list is shown, or a token revoked meanwhile would come back.
  const generation = useRef(0);
  const load = useCallback(async () => {
    generation.current += 1;
    const mine = generation.current;
    const result = await listTokens();
    if (mine !== generation.current) return;
    if (result.ok) setTokens(result.value.tokens);
    else setError(t('access.tokens.loadFailed', { error: reason(result) }));
  }, [reason, t]);

  useEffect(() => {
    void load();
  }, [load, props.refreshKey]);

  // Made or revoked on another device or tab: the events socket says so.
  const { sync } = useServices();
  useEffect(() => sync.onTokensChanged(() => void load()), [sync, load]);

  // A secret made from the form: the keyboard's focus moves to what was made.
  const setMadeFrom = useFocusOnOutcome(createdRef);

  async function create(event: SyntheticEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget;
    const result = await run(async () => {
      setError(undefined);
      const made = await createToken({ name: name.trim() });
      if (made.ok) {
        setSecret(made.value.secret);
        setName('');
        setMadeFrom(form);
      } else {
        setError(t('access.tokens.createFailed', { error: createRefusal(made) }));
      }
      return made;
    });
    // A press while one was in flight: that one reloads.
    if (result === undefined) return;
    // Unreachable: nothing changed, and a reload would only replace this message.
    if (!result.ok && result.kind === 'network') return;
    await load();
  }

  async function revoke(id: string): Promise<void> {
    const index = tokens?.findIndex((token) => token.id === id) ?? -1;
    setConfirming(undefined);
    setError(undefined);
    const result = await revokeToken(id);
    if (!result.ok) {
      setError(t('access.tokens.revokeFailed', { error: reason(result) }));
      // Unreachable: nothing changed, and a reload would only replace this message.
      if (result.kind === 'network') {
        setRefocus({ index, stayed: true });
        return;
      }
    }
    await load();
    setRefocus({ index, stayed: !result.ok });
  }

  const when = (timestamp: string) => dateTimeLabel(timestamp, i18n.resolvedLanguage);

  return (
    <section
      className="settings-section"
      data-testid="api-tokens"
      aria-labelledby="tokens-title"
      ref={sectionRef}
    >
      <h2 id="tokens-title" className="section-title">
        {t('access.tokens.title')}
      </h2>
      <p className="muted">{t('access.tokens.explain')}</p>
      {tokens !== undefined && tokens.length === 0 ? (
        <p className="muted">{t('access.tokens.empty')}</p>
      ) : null}
      {tokens !== undefined && tokens.length > 0 ? (
        <ul className="token-list" data-testid="api-token-list" ref={listRef}>
          {tokens.map((token) => (
            <li key={token.id} className="token-item" data-testid="api-token">
              <span className="token-name">
                <UserText text={token.name} />
              </span>
              {token.kind === 'agent' ? (
                <span className="chip" data-testid="api-token-kind">
                  {t('access.tokens.agentKind')}
                </span>
              ) : null}
              <span className="muted">
                {t('access.tokens.createdAt', { time: when(token.created_at) })} ·{' '}
                {token.last_used_at === null
                  ? t('access.tokens.neverUsed')
                  : t('access.tokens.lastUsed', { time: when(token.last_used_at) })}
              </span>
              <button
                type="button"
                className="button"
                aria-label={t('access.tokens.revokeLabel', { name: token.name })}
                aria-expanded={confirming === token.id}
                aria-disabled={revoking.busy}
                onClick={() => {
                  if (!revoking.busy) setConfirming(token.id);
                }}
              >
                {t('access.tokens.revoke')}
              </button>
              {confirming === token.id ? (
                <ConfirmStep
                  testId="api-token-revoke-confirm"
                  className="confirm-step settings-confirm"
                  keep={t('settings.keep')}
                  prompt={t('access.tokens.revokeConfirm', { name: token.name })}
                  yes={t('access.tokens.revokeYes')}
                  backOnConfirm
                  onConfirm={() => void revoking.run(() => revoke(token.id))}
                  onKeep={() => {
                    setConfirming(undefined);
                  }}
                />
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <form className="token-form" onSubmit={(event) => void create(event)}>
        <label className="token-form-label">
          <span>{t('access.tokens.nameLabel')}</span>
          <input
            ref={nameRef}
            data-testid="api-token-name"
            value={name}
            maxLength={MAX_TOKEN_NAME_CHARS}
            placeholder={t('access.tokens.namePlaceholder')}
            onChange={(event) => {
              setName(event.target.value);
              setError(undefined);
            }}
          />
        </label>
        <button
          type="submit"
          className="button button-primary"
          data-testid="api-token-create"
          // Not `disabled` while creating: that would drop the keyboard's focus on it to the page.
          aria-disabled={busy}
          disabled={!busy && name.trim() === ''}
        >
          {busy ? t('access.tokens.creating') : t('access.tokens.create')}
        </button>
      </form>
      {secret !== undefined ? (
        <div className="token-secret">
          <p ref={createdRef} tabIndex={-1} data-testid="api-token-created">
            {t('access.tokens.created')}
          </p>
          <CopyField value={secret} label={t('access.tokens.title')} testId="api-token-secret" />
        </div>
      ) : null}
      {error !== undefined ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
