/** `useTriageItems()`: what waits for the person now, in triage order (see `model/triage.ts`). */
import { useMemo } from 'react';
import { useModelState, useUserInputs } from '../app/services.js';
import { triageItems, type TriageItem } from '../model/triage.js';

export function useTriageItems(): TriageItem[] {
  const state = useModelState();
  const requests = useUserInputs();
  return useMemo(() => triageItems(state, requests), [state, requests]);
}
