/**
 * `useMe()`: the signed-in person's user ID, read once per page from
 * `GET /api/v1/me` and shared by every caller. Used only to tell "you" from
 * "someone else": a decision made elsewhere, a transcript's message. Until it
 * is known (or when it cannot be read) every responder and sender counts as
 * someone else, which is the cautious label.
 */
import { useEffect, useState } from 'react';
import { useServices } from '../app/services.js';
import type { ApiClient } from '../model/api.js';

const known = new WeakMap<ApiClient, Promise<string | undefined>>();

function meOf(api: ApiClient): Promise<string | undefined> {
  let pending = known.get(api);
  if (!pending) {
    pending = api.me().then((result) => {
      if (result.ok) return result.value.user.id;
      known.delete(api);
      return undefined;
    });
    known.set(api, pending);
  }
  return pending;
}

export function useMe(): string | undefined {
  const { api } = useServices();
  const [me, setMe] = useState<string>();
  useEffect(() => {
    let current = true;
    void meOf(api).then((id) => {
      if (current) setMe(id);
    });
    return () => {
      current = false;
    };
  }, [api]);
  return me;
}
