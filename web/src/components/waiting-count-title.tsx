/**
 * The tab's title counts what waits for the person, `(3) Clarion`, and its
 * icon carries the same count as a badge, so a background or pinned tab says
 * when an agent needs them. Renders nothing.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useModelState, useUserInputs } from '../app/services.js';
import { showCountOnIcon } from '../model/favicon-badge.js';
import { activeBundles } from '../model/read-model.js';
import { waitingRequests } from '../model/user-inputs.js';

export function WaitingCountTitle() {
  const { t } = useTranslation();
  const count = activeBundles(useModelState()).length + waitingRequests(useUserInputs()).length;
  const title = count > 0 ? `(${count}) ${t('app.title')}` : t('app.title');
  useEffect(() => {
    document.title = title;
  }, [title]);
  useEffect(() => {
    void showCountOnIcon(count);
  }, [count]);
  useEffect(
    () => () => {
      void showCountOnIcon(0);
    },
    [],
  );
  return null;
}
