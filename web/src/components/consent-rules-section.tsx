/**
 * Settings → "Always allow": the standing rules that answer an agent's
 * permission request without asking (the person's own; an admin's list holds
 * everyone's), each with its agent profile, tool, the workspace and folder it
 * holds in, who set it and when, and Revoke. After a revoke the next such
 * request asks again; the revoked rules follow, with who revoked them, where
 * and when. The list is read again when the events socket says the rules
 * changed (`consent_rules_changed`: kept or revoked on another device or tab)
 * or a workspace they name may have been renamed (`access_changed`,
 * `people_changed`), and each time the page is shown again.
 */
import type { TFunction } from 'i18next';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useFailureReason } from '../hooks/use-failure-reason.js';
import { useRefocusAfterRemoval } from '../hooks/use-refocus-after-removal.js';
import type { ConsentRuleRevocationView, ConsentRuleView } from '../../../src/wire/index.js';
import type { ApiFailure } from '../model/api.js';
import { consentRules, revokeConsentRule } from '../model/tasks-api.js';
import { RelativeTime } from './relative-time.js';

/** What the rule allows; a rule that allows nothing now says so. */
function ruleText(t: TFunction, rule: ConsentRuleView): string {
  if (rule.command === null) {
    return t('consentRules.ruleWithoutCommand', {
      tool: rule.tool_key,
      profile: rule.agent_profile,
    });
  }
  const words = { tool: rule.tool_key, command: rule.command, profile: rule.agent_profile };
  return rule.scope === null
    ? t('consentRules.ruleWithoutScope', words)
    : t('consentRules.rule', words);
}

/** What a revoked rule allowed; one that allowed nothing is named without advice to revoke it. */
function revokedRuleText(t: TFunction, rule: ConsentRuleRevocationView): string {
  const words = { tool: rule.tool_key, profile: rule.agent_profile };
  if (rule.command === null) return t('consentRules.revokedWithoutCommand', words);
  return t('consentRules.rule', { ...words, command: rule.command });
}

/** Where the rule holds: its workspace and the folder its agent worked in. */
function scopeText(t: TFunction, scope: NonNullable<ConsentRuleView['scope']>): string {
  const workspace = scope.workspace_name ?? t('consentRules.workspaceGone');
  return t('consentRules.scope', { workspace, cwd: scope.cwd });
}

/** What a Revoke button says it revokes: rules of one tool differ by command and place. */
function revokeLabel(t: TFunction, rule: ConsentRuleView): string {
  const what =
    rule.scope === null || rule.command === null
      ? ruleText(t, rule)
      : `${ruleText(t, rule)} · ${scopeText(t, rule.scope)}`;
  return t('consentRules.revokeLabel', { rule: what });
}

export function ConsentRulesSection() {
  const { t } = useTranslation();
  const reason = useFailureReason();
  const [rules, setRules] = useState<ConsentRuleView[] | undefined>();
  const [revoked, setRevoked] = useState<ConsentRuleRevocationView[]>([]);
  // Failures, not their sentences: said at each render, in the language the page has then. A
  // read that failed says so only until a read answers; a revoke's stands until the next revoke.
  const [loadFailed, setLoadFailed] = useState<ApiFailure>();
  const [revokeFailed, setRevokeFailed] = useState<ApiFailure>();
  // A revoked rule (here or elsewhere) takes its Revoke button, and the focus on it, along.
  const listRef = useRef<HTMLUListElement>(null);
  const titleRef = useRef<HTMLHeadingElement>(null);
  useRefocusAfterRemoval(listRef, '[data-testid="consent-rule"]', titleRef, rules);

  // Loads may overlap (shown again, then a revoke): only the newest one's list is shown.
  const generation = useRef(0);
  const load = useCallback(async () => {
    generation.current += 1;
    const mine = generation.current;
    const result = await consentRules();
    if (mine !== generation.current) return;
    setLoadFailed(result.ok ? undefined : result);
    if (result.ok) {
      setRules(result.value.rules);
      setRevoked(result.value.revoked);
    }
  }, []);

  // Shown again too: a frame lost between replicas is not said again.
  const { sync } = useServices();
  useEffect(() => {
    void load();
    const reload = () => void load();
    // Each rule names its workspace as it is called now: a rename reaches members as a change
    // of access, and admins (whose list holds rules in workspaces they are not in) as People's.
    const unsubscribe = [
      sync.onConsentRulesChanged(reload),
      sync.onAccessChanged(reload),
      sync.onPeopleChanged(reload),
    ];
    const shown = () => {
      if (document.visibilityState === 'visible') void load();
    };
    const focused = () => void load();
    document.addEventListener('visibilitychange', shown);
    window.addEventListener('focus', focused);
    return () => {
      for (const each of unsubscribe) each();
      document.removeEventListener('visibilitychange', shown);
      window.removeEventListener('focus', focused);
    };
  }, [load, sync]);

  async function revoke(rule: ConsentRuleView): Promise<void> {
    setRevokeFailed(undefined);
    const result = await revokeConsentRule(rule.id);
    // Not found: revoked already (another tab, another person), which is what was asked; the
    // list read again shows it among the revoked, with who did it.
    const gone = !result.ok && result.kind === 'http' && result.status === 404;
    if (!result.ok && !gone) setRevokeFailed(result);
    await load();
  }

  return (
    <section
      className="settings-section"
      data-testid="consent-rules"
      aria-labelledby="consent-rules-title"
    >
      <h2 id="consent-rules-title" className="section-title" ref={titleRef} tabIndex={-1}>
        {t('consentRules.title')}
      </h2>
      <p className="muted">{t('consentRules.explain')}</p>
      {rules !== undefined && rules.length === 0 ? (
        <p className="muted" data-testid="consent-rules-empty">
          {t('consentRules.empty')}
        </p>
      ) : null}
      {rules !== undefined && rules.length > 0 ? (
        <ul className="token-list" data-testid="consent-rule-list" ref={listRef}>
          {rules.map((rule) => (
            <li
              key={rule.id}
              className="token-item"
              data-testid="consent-rule"
              data-rule-id={rule.id}
            >
              <span className="token-name">{ruleText(t, rule)}</span>
              {rule.scope === null || rule.command === null ? null : (
                <span className="muted" data-testid="consent-rule-scope">
                  {scopeText(t, rule.scope)}
                </span>
              )}
              <span className="muted">
                {t('consentRules.setBy', { name: rule.set_by.name })} ·{' '}
                <RelativeTime at={rule.created_at} className="relative-time" />
              </span>
              <button
                type="button"
                className="button"
                data-testid="consent-rule-revoke"
                aria-label={revokeLabel(t, rule)}
                onClick={() => void revoke(rule)}
              >
                {t('consentRules.revoke')}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {revoked.length > 0 ? (
        <>
          <h3 className="subsection-title">{t('consentRules.revokedTitle')}</h3>
          <ul className="token-list" data-testid="consent-rule-revoked-list">
            {revoked.map((rule) => (
              <li
                key={rule.id}
                className="token-item"
                data-testid="consent-rule-revoked"
                data-rule-id={rule.id}
              >
                <span className="token-name">{revokedRuleText(t, rule)}</span>
                {rule.scope === null || rule.command === null ? null : (
                  <span className="muted">{scopeText(t, rule.scope)}</span>
                )}
                <span className="muted" data-testid="consent-rule-revoked-by">
                  {t('consentRules.revokedBy', {
                    name: rule.revoked_by.name,
                    surface: t(`decision.surface.${rule.revoked_by.surface}`),
                  })}{' '}
                  · <RelativeTime at={rule.revoked_at} className="relative-time" />
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {revokeFailed !== undefined ? (
        <p className="error" role="alert">
          {t('consentRules.revokeFailed', { error: reason(revokeFailed) })}
        </p>
      ) : null}
      {loadFailed !== undefined ? (
        <p className="error" role="alert">
          {t('consentRules.loadFailed', { error: reason(loadFailed) })}
        </p>
      ) : null}
    </section>
  );
}
