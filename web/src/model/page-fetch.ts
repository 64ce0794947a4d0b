/**
 * The one fetch every request of this page goes through. Once the page is
 * signed in, each request names the person (`SIGNED_IN_AS_HEADER`): the
 * browser's cookie is shared by its tabs, and after another tab signs in as
 * someone else the server refuses this page's requests (409
 * `session_changed`) instead of taking an answer meant as one person's as
 * another's. Whoever bound the page hears of that refusal once per request.
 * The events socket names the person too (`pageSocketUrl`).
 */
import { SIGNED_IN_AS_HEADER, SIGNED_IN_AS_PARAM } from '../../../src/wire/constants.js';
import type { FetchLike } from './api.js';

export interface PageIdentity {
  readonly userId: string;
  /** The cookie signs in another person now; `name` is theirs, when the server said. */
  readonly changed: (name: string | undefined) => void;
}

let identity: PageIdentity | undefined;

/** From the sign-in check on: this page's requests are its person's only. */
export function bindPage(bound: PageIdentity | undefined): void {
  identity = bound;
}

export const pageFetch: FetchLike = async (input, init = {}) => {
  const bound = identity;
  if (bound === undefined) return fetch(input, init);
  const headers = new Headers(init.headers);
  headers.set(SIGNED_IN_AS_HEADER, bound.userId);
  const response = await fetch(input, { ...init, headers });
  if (response.status === 409) {
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    if (field(body, 'code') === 'session_changed') {
      const name = field(field(field(body, 'details'), 'signed_in_as'), 'name');
      bound.changed(typeof name === 'string' ? name : undefined);
    }
  }
  return response;
};

/**
 * The events socket's address, naming the person as every request does: a
 * socket opened again after another tab signed in as someone else is closed
 * (`EVENTS_CLOSE_SESSION_CHANGED`) before it hears that person's events.
 */
export function pageSocketUrl(address: string): string {
  const bound = identity;
  if (bound === undefined) return address;
  const url = new URL(address);
  url.searchParams.set(SIGNED_IN_AS_PARAM, bound.userId);
  return url.toString();
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
