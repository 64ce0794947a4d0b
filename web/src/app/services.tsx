/**
 * The app's long-lived services (account, read model, sync, API client, key
 * store, config), created once per page and handed to components through
 * context. Any 401 the API client hears means the sign-in ended: the account
 * goes signed out, whichever request found out first. The events socket
 * closing for the same reason also asks whom the browser signs in as now; a
 * request refused because the cookie signs in someone else since
 * (`page-fetch.ts`) says whom itself.
 */
import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { Account, type AccountState } from '../model/account.js';
import { createApiClient, type ApiClient } from '../model/api.js';
import {
  claimKeyStore,
  memoryKeyStore,
  storageKeyStore,
  type KeyStore,
} from '../model/late-answer.js';
import { workspaceMembers } from '../model/members-api.js';
import { NamesDirectory, type NamesState } from '../model/names-directory.js';
import { ReadModel, type ModelState } from '../model/read-model.js';
import { ModelSync, type SocketLike } from '../model/sync.js';
import { workspaces } from '../model/tasks-api.js';
import { UserInputModel, type UserInputsState } from '../model/user-inputs.js';
import { readConfig, type WebConfig } from './config.js';
import { bindPage, pageFetch, pageSocketUrl } from '../model/page-fetch.js';

export interface Services {
  account: Account;
  model: ReadModel;
  /** Consent and action requests; kept apart because their revisions are per request. */
  userInputs: UserInputModel;
  sync: ModelSync;
  /** The person's workspaces and their members' names, read again when their access changes. */
  names: NamesDirectory;
  api: ApiClient;
  keyStore: KeyStore;
  config: WebConfig;
}

function browserKeyStore(): KeyStore {
  try {
    const probe = 'clarion.probe';
    window.sessionStorage.setItem(probe, '1');
    window.sessionStorage.removeItem(probe);
    return storageKeyStore(window.sessionStorage);
  } catch {
    return memoryKeyStore();
  }
}

export function createServices(): Services {
  const account = new Account();
  const keyStore = browserKeyStore();
  // Signed in, every request names the person; one the server refuses because the cookie
  // signs in someone else since ends this page's sign-in, as the socket closing does.
  const unbound = account.subscribe(() => {
    const state = account.getState();
    if (state.status !== 'signed_in') return;
    unbound();
    claimKeyStore(keyStore, state.me.user.id);
    bindPage({
      userId: state.me.user.id,
      changed: (name) => {
        account.signedOut();
        if (name !== undefined) account.signedInElsewhereAs(name);
      },
    });
  });
  const model = new ReadModel();
  const userInputs = new UserInputModel();
  const api = createApiClient(async (input, init) => {
    const response = await pageFetch(input, init);
    if (response.status === 401) account.signedOut();
    return response;
  });
  const sync = new ModelSync({
    model,
    userInputs,
    api,
    credentialEnded: () => {
      const was = account.getState();
      if (was.status !== 'signed_in') {
        account.signedOut();
        return;
      }
      // The session this page's socket opened with ended: ask whom the browser's cookie signs in
      // now. The same person, who signed in again in another tab, carries on here (a reconnect
      // reads everything again); a switch in another tab ends this page's sign-in too.
      void api.me().then((result) => {
        if (result.ok && result.value.user.id === was.me.user.id) {
          sync.start();
          return;
        }
        account.signedOut();
        if (result.ok) account.signedInElsewhereAs(result.value.user.name);
      });
    },
    openSocket: () => {
      const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
      const socket = new WebSocket(
        pageSocketUrl(`${scheme}//${window.location.host}/api/v1/events`),
      );
      const adapter: SocketLike = {
        onopen: null,
        onmessage: null,
        onclose: null,
        onerror: null,
        send: (data) => {
          socket.send(data);
        },
        close: () => {
          socket.close();
        },
      };
      socket.onopen = (event) => adapter.onopen?.(event);
      socket.onmessage = (event) => adapter.onmessage?.({ data: event.data });
      socket.onclose = (event) => adapter.onclose?.(event);
      socket.onerror = (event) => adapter.onerror?.(event);
      return adapter;
    },
  });
  const names = new NamesDirectory({
    workspaces: () => workspaces(),
    members: (workspaceId) => workspaceMembers(workspaceId),
  });
  sync.onAccessChanged(() => {
    names.refresh();
  });
  return {
    account,
    model,
    userInputs,
    sync,
    names,
    api,
    keyStore,
    config: readConfig(),
  };
}

const ServicesContext = createContext<Services | undefined>(undefined);

export function ServicesProvider(props: { services: Services; children: ReactNode }) {
  return (
    <ServicesContext.Provider value={props.services}>{props.children}</ServicesContext.Provider>
  );
}

export function useServices(): Services {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('ServicesProvider is missing');
  return services;
}

/** The user-input model's current state; re-renders on every change. */
export function useUserInputs(): UserInputsState {
  const { userInputs } = useServices();
  return useSyncExternalStore(userInputs.subscribe, userInputs.getState, userInputs.getState);
}

/** Whether the page is signed in, and as whom; re-renders on every change. */
export function useAccount(): AccountState {
  const { account } = useServices();
  return useSyncExternalStore(account.subscribe, account.getState, account.getState);
}

/** Workspaces and members' names as read so far; re-renders on every change. */
export function useNames(): NamesState {
  const { names } = useServices();
  return useSyncExternalStore(names.subscribe, names.getState, names.getState);
}

/** The read model's current state; re-renders on every change. */
export function useModelState(): ModelState {
  const { model } = useServices();
  return useSyncExternalStore(model.subscribe, model.getState, model.getState);
}
