/**
 * Whether this page is signed in, and as whom: a small framework-free store
 * the shell subscribes to. It starts `checking`; the sign-in check at page
 * load moves it to `signed_in` (with the person from `GET /api/v1/me`) or
 * `signed_out`. Signing out is one way for the page: a sign-in ended in
 * another tab, by an administrator or by Sign out here (a 401 from the API,
 * the events socket closing with 1008 while the cookie signs in nobody) all
 * end on the signed-out screen, and only a sign-in link, which loads the
 * page again, signs it back in. A 1008 because the same person signed in
 * again in another tab, which ends the session it replaced, is no sign-out:
 * the page carries on with the browser's new cookie. When
 * the browser's cookie now signs in someone else (a switch in another tab),
 * the page stays signed out and says who (`now`): it never carries on as that
 * person, since a half-written answer would be sent as theirs.
 */
import type { Me } from './api.js';

export type AccountState =
  | { status: 'checking' }
  | { status: 'signed_in'; me: Me }
  /**
   * `ended`: the page was signed in and its sign-in ended, here or elsewhere;
   * `now`: the person the browser is signed in as since, if another.
   */
  | { status: 'signed_out'; ended: boolean; now?: string };

export class Account {
  private state: AccountState = { status: 'checking' };
  private readonly listeners = new Set<() => void>();

  readonly getState = (): AccountState => this.state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Only from `checking`: a late answer never signs a signed-out page back in. */
  signedIn(me: Me): void {
    if (this.state.status === 'checking') this.set({ status: 'signed_in', me });
  }

  signedOut(): void {
    if (this.state.status === 'signed_out') return;
    this.set({ status: 'signed_out', ended: this.state.status === 'signed_in' });
  }

  /** Only once signed out: the browser's cookie signs in another person, so a reload would. */
  signedInElsewhereAs(name: string): void {
    if (this.state.status === 'signed_out') this.set({ ...this.state, now: name });
  }

  private set(state: AccountState): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}
