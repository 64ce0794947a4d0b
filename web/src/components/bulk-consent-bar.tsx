/**
 * The bar that decides the selected consent requests (all of one tool for
 * one agent profile) at once, then lists each one that did not go through
 * and why. Answers land in the user-input model one by one, as they do from
 * a card.
 */
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/services.js';
import { useBusyAction } from '../hooks/use-busy-action.js';
import { decideAll, type BulkChoice, type BulkItemResult } from '../model/bulk-consent.js';
import type { ConsentView } from '../model/types.js';
import { userInputTransitions } from '../model/user-inputs.js';
import { DecisionConfirm } from './decision-confirm.js';
import { UserText } from './user-text.js';

type BarState =
  | { phase: 'idle' }
  /** A Reject waits for its confirmation and the one optional reason for all. */
  | { phase: 'confirming' }
  | { phase: 'sending'; choice: BulkChoice; done: number }
  | { phase: 'done'; failures: BulkItemResult[] };

export function BulkConsentBar(props: {
  selected: ConsentView[];
  taskTitle: (view: ConsentView) => string;
  onFinished: () => void;
}) {
  const { t } = useTranslation();
  const { api, config, userInputs } = useServices();
  const [state, setState] = useState<BarState>({ phase: 'idle' });
  // The guard against a second press: the rendered phase is the same for two presses in one render.
  const sending = useBusyAction();
  // Reject is made again as its confirm step goes: the step hands the focus to the new one.
  const rejectButton = useRef<HTMLButtonElement>(null);
  const count = props.selected.length;

  const run = (choice: BulkChoice, reason = '') => {
    if (count === 0) return;
    void sending.run(async () => {
      let done = 0;
      setState({ phase: 'sending', choice, done });
      const results = await decideAll(api, props.selected, choice, {
        deadlineMs: config.respondDeadlineMs,
        ...(reason === '' ? {} : { reason }),
        onEach: ({ view, outcome }) => {
          done += 1;
          if (outcome.kind === 'answered') {
            userInputs.update((model) => userInputTransitions.view(model, outcome.request));
          } else if (outcome.kind === 'gone') {
            userInputs.update((model) => userInputTransitions.retire(model, view.id));
          }
          setState({ phase: 'sending', choice, done });
        },
      });
      setState({
        phase: 'done',
        failures: results.filter((result) => result.outcome.kind !== 'answered'),
      });
      props.onFinished();
    });
  };

  // Kept while sending too: as the last decision lands the selection empties before the report
  // is set, and a bar gone for that moment dropped the focus it held to the page's title.
  if (count === 0 && state.phase !== 'done' && state.phase !== 'sending') return null;
  return (
    <div
      className="bulk-bar"
      data-testid="bulk-bar"
      role="region"
      aria-label={t('triage.bulkTitle')}
      // Takes the focus of Allow or Reject, gone once the last decision lands: the report is read
      // from here.
      tabIndex={-1}
    >
      {count > 0 && state.phase === 'confirming' ? (
        <DecisionConfirm
          prompt={t('rejectReason.bulkPrompt', { count })}
          placeholder={t('rejectReason.placeholder')}
          yes={t('rejectReason.bulkYes', { count })}
          withReason
          opener={rejectButton}
          // Reject then stands for the rejections on their way (busy), as Allow does for its own.
          backOnConfirm
          onConfirm={(reason) => {
            run('reject', reason);
          }}
          onCancel={() => {
            setState({ phase: 'idle' });
          }}
        />
      ) : null}
      {count > 0 && state.phase !== 'confirming' ? (
        <div className="bulk-actions">
          <span>{t('triage.bulkSelected', { count })}</span>
          <button
            type="button"
            className="button button-primary"
            data-testid="bulk-allow"
            // Not `disabled` while they go: the keyboard's focus stays where it pressed.
            aria-disabled={sending.busy}
            onClick={() => {
              run('allow');
            }}
          >
            {t('triage.bulkAllow', { count })}
          </button>
          <button
            ref={rejectButton}
            type="button"
            className="button"
            data-testid="bulk-reject"
            aria-disabled={sending.busy}
            onClick={() => {
              if (!sending.busy) setState({ phase: 'confirming' });
            }}
          >
            {t('triage.bulkReject', { count })}
          </button>
        </div>
      ) : null}
      {state.phase === 'sending' ? (
        <p role="status" data-testid="bulk-status">
          {t('triage.bulkSending', { done: state.done, count })}
        </p>
      ) : null}
      {state.phase === 'done' ? (
        <BulkReport failures={state.failures} taskTitle={props.taskTitle} />
      ) : null}
    </div>
  );
}

function BulkReport(props: {
  failures: BulkItemResult[];
  taskTitle: (view: ConsentView) => string;
}) {
  const { t } = useTranslation();
  if (props.failures.length === 0) {
    return (
      <p role="status" data-testid="bulk-report" data-failures="0">
        {t('triage.bulkAllDone')}
      </p>
    );
  }
  return (
    <div role="alert" data-testid="bulk-report" data-failures={props.failures.length}>
      <p>{t('triage.bulkSomeFailed', { count: props.failures.length })}</p>
      <ul>
        {props.failures.map(({ view, outcome }) => (
          <li key={view.id} data-testid="bulk-failure" data-request-id={view.id}>
            <UserText text={props.taskTitle(view)} />: <UserText text={view.title} /> —{' '}
            {t(`triage.bulkFailure.${outcome.kind}`)}
          </li>
        ))}
      </ul>
    </div>
  );
}
