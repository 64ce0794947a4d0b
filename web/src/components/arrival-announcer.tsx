/**
 * `ArrivalAnnouncer`: one polite live region that tells a screen reader what
 * newly waits for the person (a question, form, permission or action that
 * arrived while the app is open), once per item, on whatever page they are.
 * What already waited when the page opened is not news: the inbox lists it
 * (`model/arrivals.ts` tells the two apart by what the page has read, not by
 * clocks). The region is in the page from the start, empty, so a change in
 * it is noticed; an item waits to be told until its task's title is known.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useModelState, useUserInputs } from '../app/services.js';
import { useTriageItems } from '../hooks/use-triage-items.js';
import { arrivals } from '../model/arrivals.js';

export function ArrivalAnnouncer() {
  const { t } = useTranslation();
  const items = useTriageItems();
  const bundlesRead = useModelState().firstRead;
  const requestsRead = useUserInputs().firstRead;
  const told = useRef(new Set<string>());
  const [message, setMessage] = useState('');

  useEffect(() => {
    const fresh = arrivals(items, { bundles: bundlesRead, requests: requestsRead }, told.current);
    const [first] = fresh;
    if (!first) return;
    for (const item of fresh) told.current.add(item.key);
    setMessage(
      fresh.length === 1
        ? t('triage.arrived', { kind: t(`triage.kind.${first.kind}`), task: first.task_title })
        : t('triage.arrivedMany', { count: fresh.length }),
    );
  }, [items, bundlesRead, requestsRead, t]);

  return (
    <p className="sr-only" role="status" data-testid="arrivals">
      {message}
    </p>
  );
}
