/** What Clarion's middleware puts on a request's context for the routes after it. */
import type { Principal } from '../auth/index.js';

export interface AppEnv {
  Variables: {
    /** Set by the auth middleware on every `/api/v1` route. */
    principal: Principal;
  };
}
