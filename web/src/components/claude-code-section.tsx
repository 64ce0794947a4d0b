/**
 * Settings → "Connect Claude Code": mints an agent token named "Claude
 * Code" and the time (Claude Code may ask and wait through MCP, never
 * decide) and shows the one command that adds Clarion to Claude Code as an
 * HTTP MCP server, the same form the README gives. A secret is shown once,
 * so a second click cannot show the first token again: it makes another,
 * and the time in its name tells them apart in the token list. The origin is the one this
 * page was loaded from: the address that reached Clarion from this machine.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import type { ApiFailure } from '../model/api.js';
import { claudeMcpCommand, createToken } from '../model/credentials-api.js';
import { CopyField } from './copy-field.js';

export function ClaudeCodeSection(props: { onTokenCreated?: () => void }) {
  const { t, i18n } = useTranslation();
  const reason = useFailureReason();
  const { busy, run } = useBusyAction();
  const [command, setCommand] = useState<string | undefined>();
  // The failure, not its sentence: said at each render, in the language the page has then.
  const [failed, setFailed] = useState<ApiFailure>();

  async function mint(): Promise<void> {
    setFailed(undefined);
    const time = new Date().toLocaleString(i18n.resolvedLanguage, {
      dateStyle: 'medium',
      timeStyle: 'medium',
    });
    const result = await createToken({
      name: t('access.claudeCode.tokenName', { time }),
      kind: 'agent',
    });
    if (result.ok) {
      setCommand(claudeMcpCommand(window.location.origin, result.value.secret));
      props.onTokenCreated?.();
    } else {
      setFailed(result);
    }
  }

  return (
    <section className="settings-section" data-testid="claude-code" aria-labelledby="claude-title">
      <h2 id="claude-title" className="section-title">
        {t('access.claudeCode.title')}
      </h2>
      <p className="muted">{t('access.claudeCode.explain')}</p>
      <button
        type="button"
        className="button button-primary"
        data-testid="claude-code-mint"
        // Not `disabled`: that would drop the keyboard's focus on it to the page.
        aria-disabled={busy}
        onClick={() => void run(mint)}
      >
        {busy ? t('access.claudeCode.minting') : t('access.claudeCode.mint')}
      </button>
      {command !== undefined ? (
        <>
          <CopyField
            value={command}
            label={t('access.claudeCode.title')}
            testId="claude-code-command"
          />
          <p className="muted">{t('access.claudeCode.once')}</p>
        </>
      ) : null}
      {failed !== undefined ? (
        <p className="error" role="alert">
          {t('access.claudeCode.failed', { error: reason(failed) })}
        </p>
      ) : null}
    </section>
  );
}
