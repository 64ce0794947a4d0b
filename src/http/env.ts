/** What Clarion's middleware puts on a request's context for the routes after it. */
import type { DecisionSurface, Principal } from '../auth/index.js';

export interface AppEnv {
  Variables: {
    /** Set by the auth middleware on every `/api/v1` route. */
    principal: Principal;
    /** Where a decision made on this request comes from: `web` for the cookie, `rest` for a bearer. */
    surface: DecisionSurface;
    /** How long the auth middleware waited for the credential lookup, in the store's clock. */
    credentialLookupMs: number;
  };
}
