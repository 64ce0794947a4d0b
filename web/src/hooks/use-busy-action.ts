/**
 * `useBusyAction()`: a button's request, one at a time (`model/busy-gate.ts`).
 * `busy` is for the button's `aria-disabled` and its label, never for
 * `disabled`: a disabled button drops the keyboard's focus on it to the
 * page. `run` ignores a press while one is in flight, so the button may
 * stay pressable meanwhile.
 */
import { useState } from 'react';
import { busyGate, type BusyGate } from '../model/busy-gate.js';

export interface BusyAction {
  busy: boolean;
  run: BusyGate['run'];
}

export function useBusyAction(): BusyAction {
  const [busy, setBusy] = useState(false);
  // Made once: the flag must outlive renders, or a press in the next one would pass it.
  const [gate] = useState(() => busyGate(setBusy));
  return { busy, run: gate.run };
}
