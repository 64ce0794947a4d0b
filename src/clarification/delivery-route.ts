/**
 * Which replica delivers a claim when several share the store (issue 16),
 * pure. The agent must get the answer from the replica that can hand it
 * over: the one its live wait runs on, else the one running its agent (the
 * session's lease holder, which resumes it with a new turn), else the one
 * that claimed it (an external agent collects it from the store anywhere).
 *
 * A replica the bundle was asked on that holds no wait any more says so in
 * the store first (`waitEnded`), so nobody routes the claim back to it.
 */

export interface RouteFacts {
  /** This replica. */
  readonly here: string;
  /** A live wait on the bundle runs on this replica. */
  readonly waiterHere: boolean;
  /**
   * The live replica the bundle's live wait began on, while its rows say the
   * wait may still run; undefined when they say it ended or that replica died.
   */
  readonly askedOn: string | undefined;
  /** The live replica holding the session's lease, if any. */
  readonly holder: string | undefined;
  /** The replica that claimed the bundle or last moved its delivery on. */
  readonly origin: string;
}

export type DeliveryRoute =
  | { readonly kind: 'here' }
  | { readonly kind: 'elsewhere'; readonly replica: string }
  /** The wait began here and is gone: mark the claim detached, then route again. */
  | { readonly kind: 'waitEnded' };

const HERE: DeliveryRoute = { kind: 'here' };

export function deliveryRoute(facts: RouteFacts): DeliveryRoute {
  if (facts.waiterHere) return HERE;
  if (facts.askedOn !== undefined) {
    return facts.askedOn === facts.here
      ? { kind: 'waitEnded' }
      : { kind: 'elsewhere', replica: facts.askedOn };
  }
  const owner = facts.holder ?? facts.origin;
  return owner === facts.here ? HERE : { kind: 'elsewhere', replica: owner };
}
