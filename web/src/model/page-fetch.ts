/**
 * The one fetch every request of this page goes through. Once the page is
 * signed in, each request names the person (`SIGNED_IN_AS_HEADER`): the
 * browser's cookie is shared by its tabs, and after another tab signs in as
 * someone else the server refuses this page's requests (409
 * `session_changed`) instead of taking an answer meant as one person's as
 * another's. Whoever bound the page hears of that refusal once per request.
 */
import { SIGNED_IN_AS_HEADER } from '../../../src/wire/constants.js';
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

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
