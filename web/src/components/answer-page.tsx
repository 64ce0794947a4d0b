/**
 * `/answer#<secret>`: the confirm page a notification's answer link opens.
 * Opening it only reads (view); the person's tap on Confirm decides (use).
 * It needs no session: the secret in the fragment, which browsers never send
 * to a server, is the credential, and the page sends it in a POST body.
 * The task, the question, the choice and a decider's name are supplied
 * text: shown as written (`UserText`; i18n's escape is `showBidiControls`), since what a
 * person confirms must be what it says. A consent option's label is the
 * agent's, and may say the opposite of what the option does: the page leads
 * with what it does, by its kind, in the words the consent card uses, and
 * shows the label beside it as the agent's.
 * The secret decides as the person it was made for, whoever holds it (a
 * forwarded notice, a shared ntfy topic): the page names them before Confirm,
 * so a link that is someone else's reads as such, and after it.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { answerWithLink, viewAnswerLink } from '../model/answer-links-api.js';
import { UserText } from './user-text.js';
import { saysOnly } from '../../../src/wire/consent-words.js';
import type { AnswerLinkView, ConsentOptionKind } from '../../../src/wire/index.js';

type PageState =
  | { step: 'loading' }
  | { step: 'invalid' }
  | { step: 'unreachable' }
  | { step: 'ready'; link: AnswerLinkView; failed: boolean }
  | { step: 'sending'; link: AnswerLinkView }
  | { step: 'result'; link: AnswerLinkView; usedHere: boolean };

function secretOfLocation(): string {
  try {
    return decodeURIComponent(window.location.hash.replace(/^#/, ''));
  } catch {
    return '';
  }
}

/** Stays on the origin the phone reached, whatever origin the server believes it has. */
function pathOf(url: string): string {
  try {
    const parsed = new URL(url, window.location.origin);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return '/';
  }
}

/**
 * Follows the link in the address bar: a second link of the same notice
 * opened in this tab changes only the fragment, which reloads nothing, so
 * the page starts over for it (keyed by its secret) instead of confirming
 * the first link's choice under the second's address.
 */
export function AnswerPage() {
  const [token, setToken] = useState(secretOfLocation);
  useEffect(() => {
    const follow = () => {
      setToken(secretOfLocation());
    };
    window.addEventListener('hashchange', follow);
    return () => {
      window.removeEventListener('hashchange', follow);
    };
  }, []);
  return <AnswerLinkPage key={token} token={token} />;
}

function AnswerLinkPage({ token }: { token: string }) {
  const { t } = useTranslation();
  const [state, setState] = useState<PageState>({ step: 'loading' });
  const sectionRef = useRef<HTMLElement>(null);
  // Confirm keeps the focus while it sends, then gives way to the result: the focus it had (a
  // keyboard's, a screen reader's) goes to the result; if it failed, Confirm still has it.
  const confirming = useRef(false);
  useEffect(() => {
    if (state.step === 'sending' || !confirming.current) return;
    confirming.current = false;
    const active = document.activeElement;
    if (active !== null && active !== document.body) return;
    sectionRef.current
      ?.querySelector<HTMLElement>('[data-testid="answer-result"], [data-testid="answer-confirm"]')
      ?.focus();
  }, [state]);

  useEffect(() => {
    if (token === '') {
      setState({ step: 'invalid' });
      return;
    }
    let cancelled = false;
    void viewAnswerLink(token).then((result) => {
      if (cancelled) return;
      if (result.ok) {
        const { link } = result.value;
        setState(
          link.state === 'open'
            ? { step: 'ready', link, failed: false }
            : { step: 'result', link, usedHere: false },
        );
      } else if (result.kind === 'http' && result.status >= 400 && result.status < 500) {
        setState({ step: 'invalid' });
      } else {
        setState({ step: 'unreachable' });
      }
    });
    return () => {
      cancelled = true;
    };
  }, [token]);

  async function confirm(link: AnswerLinkView) {
    confirming.current = true;
    setState({ step: 'sending', link });
    const result = await answerWithLink(token);
    if (result.ok) {
      setState({ step: 'result', link: result.value.link, usedHere: true });
    } else if (result.kind === 'http' && result.status === 404) {
      setState({ step: 'invalid' });
    } else {
      setState({ step: 'ready', link, failed: true });
    }
  }

  return (
    <section
      ref={sectionRef}
      className="answer-page"
      data-testid="answer-page"
      aria-labelledby="answer-title"
    >
      {state.step === 'loading' ? <p className="muted">{t('app.loading')}</p> : null}
      {state.step === 'invalid' ? (
        <>
          <h1 id="answer-title" className="page-title">
            {t('answerLink.invalidTitle')}
          </h1>
          <p data-testid="answer-result" data-state="invalid" tabIndex={-1}>
            {t('answerLink.invalid')}
          </p>
        </>
      ) : null}
      {state.step === 'unreachable' ? (
        <>
          <h1 id="answer-title" className="page-title">
            {t('answerLink.title')}
          </h1>
          <p className="error" role="alert">
            {t('answerLink.failed')}
          </p>
        </>
      ) : null}
      {state.step === 'ready' || state.step === 'sending' || state.step === 'result' ? (
        <LinkDetails
          link={state.link}
          busy={state.step === 'sending'}
          failed={state.step === 'ready' && state.failed}
          result={state.step === 'result' ? state.usedHere : undefined}
          onConfirm={(link) => void confirm(link)}
        />
      ) : null}
    </section>
  );
}

/** What the choice does when it is a consent option (by its kind), else its own words. */
function useChoiceWords(): (choice: string, kind: ConsentOptionKind | null) => string {
  const { t } = useTranslation();
  return (choice, kind) => (kind === null ? choice : t(`userInput.optionKind.${kind}`));
}

/**
 * A consent option's own label, as the agent's words, unless it says no more than the kind's
 * words already shown (as on the consent card); and what an "always" sets: this command only.
 */
function AgentLabel(props: {
  choice: string;
  kind: ConsentOptionKind | null;
  rule?: { command: string; profile: string };
}) {
  const { t } = useTranslation();
  if (props.kind === null) return null;
  return (
    <>
      {saysOnly(props.kind, props.choice) ? null : (
        <p className="muted" data-testid="answer-agent-label">
          {t('answerLink.agentLabel')} <UserText text={props.choice} />
        </p>
      )}
      {props.rule && props.kind === 'allow_always' ? (
        <p data-testid="answer-sets-rule">{t('answerLink.setsRule', props.rule)}</p>
      ) : null}
    </>
  );
}

function LinkDetails(props: {
  link: AnswerLinkView;
  busy: boolean;
  failed: boolean;
  /** Set once there is an outcome: whether this page's tap made the decision. */
  result: boolean | undefined;
  onConfirm: (link: AnswerLinkView) => void;
}) {
  const { t } = useTranslation();
  const { link } = props;
  const canConfirm = link.state === 'open' && props.result === undefined;
  const words = useChoiceWords()(link.choice, link.choice_kind);
  return (
    <>
      <p className="muted" data-testid="answer-task">
        <UserText text={link.task_title} />
      </p>
      <h1 id="answer-title" className="page-title" data-testid="answer-title">
        {link.title === '' ? t(`answerLink.kind.${link.kind}`) : <UserText text={link.title} />}
      </h1>
      {canConfirm ? (
        <>
          <p>
            {t('answerLink.yourChoice')}{' '}
            <strong data-testid="answer-choice">
              {link.choice_kind === null ? <UserText text={link.choice} /> : words}
            </strong>
          </p>
          <AgentLabel
            choice={link.choice}
            kind={link.choice_kind}
            rule={{ command: link.title, profile: link.agent_profile }}
          />
          {link.answering_as ? (
            <p data-testid="answer-as">
              <strong>{t('answerLink.answeringAs', { name: link.answering_as.name })}</strong>
            </p>
          ) : null}
          <button
            type="button"
            className="button button-primary answer-button"
            data-testid="answer-confirm"
            // Not `disabled`: that would drop the keyboard's focus on it to the page while it sends.
            aria-disabled={props.busy}
            onClick={() => {
              if (!props.busy) props.onConfirm(link);
            }}
          >
            {props.busy ? t('answerLink.sending') : t('answerLink.confirm', { choice: words })}
          </button>
          {props.failed ? (
            <p className="error" role="alert">
              {t('answerLink.failed')}
            </p>
          ) : null}
        </>
      ) : (
        <Outcome link={link} usedHere={props.result === true} />
      )}
      <p>
        <a className="button answer-button" data-testid="answer-open" href={pathOf(link.url)}>
          {t('answerLink.open')}
        </a>
      </p>
    </>
  );
}

function Outcome(props: { link: AnswerLinkView; usedHere: boolean }) {
  const { t } = useTranslation();
  const { link } = props;
  const decided = link.decided;
  const wordsOf = useChoiceWords();
  const choice = decided ? wordsOf(decided.choice, decided.choice_kind) : '';
  let text: string;
  if (decided === null) {
    text = t('answerLink.expired');
  } else if (
    props.usedHere &&
    decided.choice === link.choice &&
    decided.responded_by?.surface === 'link'
  ) {
    text = t('answerLink.done', { choice, name: decided.responded_by.name });
  } else if (decided.responded_by) {
    text = t('answerLink.alreadyDecidedBy', {
      choice,
      name: decided.responded_by.name,
      surface: t(`decision.surface.${decided.responded_by.surface}`),
    });
  } else {
    text = t('answerLink.alreadyDecided', { choice });
  }
  return (
    <>
      <p data-testid="answer-result" data-state={link.state} role="status" tabIndex={-1}>
        {text}
      </p>
      {decided ? <AgentLabel choice={decided.choice} kind={decided.choice_kind} /> : null}
    </>
  );
}
