/**
 * Run-time settings of the web app. The response deadline can be shortened
 * for tests through `?respond_deadline_ms=` (remembered for the tab in
 * sessionStorage) or `window.__CLARION_CONFIG__ = { respondDeadlineMs }`.
 */
import { CLIENT_RESPONSE_DEADLINE_MS, UNDO_WINDOW_MS } from '../model/respond.js';

export interface WebConfig {
  respondDeadlineMs: number;
  undoWindowMs: number;
}

declare global {
  interface Window {
    __CLARION_CONFIG__?: Partial<WebConfig>;
  }
}

const STORAGE_KEY = 'clarion.respond_deadline_ms';

function positive(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
}

export function readConfig(): WebConfig {
  const fromQuery = positive(
    new URLSearchParams(window.location.search).get('respond_deadline_ms'),
  );
  if (fromQuery !== undefined) {
    try {
      window.sessionStorage.setItem(STORAGE_KEY, String(fromQuery));
    } catch {
      // Storage can be unavailable (private modes); the value still applies to this page.
    }
  }
  let stored: number | undefined;
  try {
    stored = positive(window.sessionStorage.getItem(STORAGE_KEY));
  } catch {
    stored = undefined;
  }
  return {
    respondDeadlineMs:
      positive(window.__CLARION_CONFIG__?.respondDeadlineMs) ??
      fromQuery ??
      stored ??
      CLIENT_RESPONSE_DEADLINE_MS,
    undoWindowMs: positive(window.__CLARION_CONFIG__?.undoWindowMs) ?? UNDO_WINDOW_MS,
  };
}
