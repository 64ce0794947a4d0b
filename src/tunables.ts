/**
 * Every budget, deadline, timeout and interval of the server, in one place
 * with its unit in its name. Owners import what they use from here; tests
 * that need other values pass them in through the owner's options, never by
 * editing these. Sizes and counts of the wire contract live in
 * `wire/limits.ts`.
 */

// ---------------------------------------------------------------- clarification (DESIGN §5)
/**
 * One budget for identity, authorization, validation and the claim; the
 * request's credential lookup before it counts against it, so a respond's
 * whole wait for the database stays within it.
 */
export const PRE_CLAIM_BUDGET_MS = 5_000;
/** Delivery after the claim, owned by the server even if the caller left. */
export const DELIVERY_BUDGET_MS = 30_000;
/**
 * Of the delivery budget, the part a detached answer keeps for its resume
 * prompt's acknowledgement (at most a third of the budget): an agent that is
 * not ready before the rest has passed (its start, a long `session/load`)
 * gets nothing, and the claim goes back for the person's retry.
 */
export const DELIVERY_PROMPT_RESERVE_MS = 10_000;
/**
 * A `wait_for_answer` whose bundle expired while it waited (its session ended
 * or is being deleted) reads it once more after this long: a deleted
 * session's rows go just after its bundles expire, so the wait ends as a new
 * call would, `not_found` when they went and `not_active` when they stayed.
 */
export const ENDED_BUNDLE_RECHECK_MS = 1_000;
/** How long an agent's `ask_user_question` waits live before detaching. */
export const LIVE_WAIT_MS = 2 * 60 * 60 * 1000;

// ---------------------------------------------------------------- user-input requests (DESIGN §7)
export const CONSENT_DEADLINE_MS = 5 * 60 * 1000;
export const ACTION_DEADLINE_MS = 30 * 60 * 1000;
/** A form blocks the agent like a consent, but takes longer to fill in. */
export const FORM_DEADLINE_MS = 15 * 60 * 1000;
/** Backoff after the n-th consecutive failed follow-up attempt: base · 2^(n-1), capped. */
export const FOLLOW_UP_RETRY_BASE_MS = 1_000;
export const FOLLOW_UP_RETRY_MAX_MS = 30_000;
/** A follow-up that found its session busy is tried again after this, or at the next turn end. */
export const FOLLOW_UP_BUSY_RECHECK_MS = 30_000;
/** An admission attempt that has not answered by then counts as failed (a late acceptance still settles). */
export const FOLLOW_UP_ATTEMPT_TIMEOUT_MS = 60_000;
/**
 * The longest a person's decision on a consent, action or form waits to be
 * kept (its session's lock and statements) before it is refused as not
 * recorded; the agent hears nothing until it is kept.
 */
export const DECISION_RECORD_MAX_MS = 5_000;
/**
 * A refused decision's write that goes on (its COMMIT already sent) is waited
 * for at most this long before its row is superseded regardless (the
 * session's lock still orders the two); the store's own bounds usually end it first.
 */
export const DECISION_UNKEPT_WAIT_MAX_MS = 60_000;
/**
 * The longest a consent, action or form request waits, before a person can
 * see it, for its copy to be kept for recovery; past it, it is asked without.
 */
export const USER_INPUT_COPY_KEEP_MAX_MS = 2_000;
/** Tries at superseding a refused decision's kept row, each within `DECISION_RECORD_MAX_MS`. */
export const DECISION_UNKEPT_ATTEMPTS = 5;
/** The pause between those tries. */
export const DECISION_UNKEPT_RETRY_MS = 5_000;
/** A consent asks its "Always allow" rule for at most this long (waiting writes included), then a person. */
export const CONSENT_RULE_LOOKUP_TIMEOUT_MS = 5_000;
/** The newest revoked "Always allow" rules the rules' list shows, with who revoked them. */
export const CONSENT_RULE_REVOCATIONS_LISTED_ROWS = 100;
/**
 * A request whose agent's connection closed under its call (not the agent's
 * own cancel) waits at most this long for the turn that asked to end, then is
 * swept. A killed agent's connection closes before its exit is seen; the
 * turn's end then says it exited (after the pipes drain, `AGENT_PIPE_DRAIN_MS`,
 * and the end's write). An agent that only dropped its connection lives on:
 * its request is swept at its turn's end, or this much later than at once.
 */
export const LOST_CALL_TURN_END_WAIT_MS = 10_000;

// ---------------------------------------------------------------- agents
/** How long a new agent process may take to answer `initialize` and `session/new`; `CLARION_AGENT_START_TIMEOUT_S`. */
export const AGENT_START_TIMEOUT_MS = 30_000;
/**
 * An agent with no turn, no open question and no user-input request for this
 * long is stopped (the next prompt starts it again); `CLARION_AGENT_IDLE_S`.
 */
export const AGENT_IDLE_MS = 600_000;
/**
 * How long a message that starts its session's agent waits for that start
 * before its admission answers `queued` (the session shows `starting`); a
 * quicker start answers `sent`, or the failure, as a person expects.
 */
export const ADMISSION_START_WAIT_MS = 2_000;
/** SIGTERM to SIGKILL for an agent's process group; `CLARION_AGENT_STOP_GRACE_S`. */
export const AGENT_STOP_GRACE_MS = 5_000;
/** After SIGKILL, how long a stop still waits for the agent's exit before it gives up on it. */
export const AGENT_KILL_WAIT_MS = 2_000;
/** How long an exited agent's stdio may stay open (a grandchild holding it) before it is destroyed. */
export const AGENT_PIPE_DRAIN_MS = 500;
/** How often a stop looks whether the agent's process group is gone. */
export const AGENT_GROUP_POLL_INTERVAL_MS = 50;
/** Streamed agent output is coalesced into one transcript write per interval. */
export const AGENT_OUTPUT_FLUSH_INTERVAL_MS = 200;
/** A report of an agent the storage could not take is written again after base · 2^(n-1), capped… */
export const AGENT_EVENT_RETRY_BASE_MS = 100;
export const AGENT_EVENT_RETRY_MAX_MS = 5_000;
/** …and given up (logged with its cause) once this long has passed since the first failed try. */
export const AGENT_EVENT_RETRY_LIMIT_MS = 2 * 60 * 1000;
/**
 * A person's message its agent did not take is answered within this long
 * (503, storage unavailable) while the write saying so is still retried; the
 * write goes on to its own limit above.
 */
export const MESSAGE_ANSWER_AFTER_REFUSAL_MS = 3_000;
/** How long a prompt may wait for the agent to accept it. */
export const PROMPT_ACCEPT_TIMEOUT_MS = 30_000;
/** A cancel waits this long for `session/cancel` to reach an agent that may have stopped reading stdin. */
export const AGENT_CANCEL_SEND_MAX_MS = 3_000;
/**
 * How long a turn may go on after a cancel (or after its prompt's caller gave
 * up waiting for the agent to take it) before Clarion stops the agent, which
 * ends the turn; `CLARION_AGENT_CANCEL_GRACE_S`. ACP agents answer a cancel by
 * ending the prompt within a second or two (they abort the model call and
 * their tools); 10 s leaves a slow tool room to clean up, and with the stop's
 * grace and kill wait a person's cancel still ends its turn within ~20 s.
 */
export const AGENT_CANCEL_GRACE_MS = 10_000;
/** MCP progress notifications keep clients from timing out a long wait (DESIGN §5). */
export const MCP_PROGRESS_INTERVAL_MS = 20_000;
/**
 * A waiting tool call from a client that sends no progress token returns by
 * then (an ask as `waiting`, to be continued with `wait_for_answer`): such
 * clients give up on a request after 60 s by default, and nothing resets it.
 */
export const MCP_CALL_WITHOUT_PROGRESS_MS = 50_000;
/**
 * While a tool call waits (an ask, `wait_for_answer`), its token is read again
 * this often. A revocation through the API is announced (to the other
 * replicas by a wake) and read at once; this bounds how long a revoked
 * caller's wait runs on when the announcement is lost, or when the token ran
 * out or its row was deleted in the database by hand. One read serves every call waiting on this
 * server. An answer is never handed to a wait without a read of its token
 * first, whatever this is.
 */
export const MCP_CREDENTIAL_RECHECK_MS = 1_000;
/**
 * An MCP session without calls for this long closes its copy here; its next
 * call opens it again from the store (`MCP_SHARED_SESSION_UNUSED_MS`).
 */
export const MCP_SESSION_IDLE_MS = 10 * 60 * 1000;
/**
 * `clarion mcp-stdio`: how long the bridge, its client gone, waits for
 * Clarion to end its MCP session before it exits anyway (the session then
 * idles out).
 */
export const MCP_BRIDGE_SESSION_END_MS = 2_000;
/**
 * `clarion mcp-stdio`: how long the bridge waits for Clarion to open it a
 * new MCP session (its own one unknown there) before it refuses the message
 * it was forwarding.
 */
export const MCP_BRIDGE_REOPEN_MS = 10_000;
/** How often idle MCP sessions are looked for. */
export const MCP_SESSION_SWEEP_INTERVAL_MS = 60 * 1000;
/**
 * An MCP session is kept in the store, so that any replica, or this server
 * after a restart or an idle close, opens it again, until it goes this long
 * unused (its client closed it, or never will). A coding agent's session may
 * stay open for days, quiet most of the time, and some clients never open a
 * new one on "Session not found": counted from the last use, never from the
 * `initialize`.
 */
export const MCP_SHARED_SESSION_UNUSED_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * A session's use is written to the store at most this often (by the idle
 * sweep, never on a call): far below `MCP_SHARED_SESSION_UNUSED_MS`, so the
 * writes cost nothing a call would notice and the bound is off by this much
 * at most.
 */
export const MCP_SHARED_SESSION_USE_RECORD_MS = 60 * 60 * 1000;
/** The demo agent's `/ask-detach`: how long it waits before its call gives up. */
export const DEMO_DETACH_AFTER_MS = 2_000;
/** The demo agent's MCP client: a call with no reply for this long fails. */
export const DEMO_MCP_IDLE_TIMEOUT_MS = 60_000;

// ---------------------------------------------------------------- sign-in
/** The link printed at start-up: the first way in, so it outlasts a long lunch. */
export const SIGN_IN_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
export const BROWSER_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A link minted on demand (Settings, the admin API, `clarion sign-in-link`): shown, scanned, gone. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;
/**
 * Unused, unexpired links one person may hold from `POST /api/v1/auth/sign-in-links`,
 * so a loop cannot fill the table; a slot frees when a link is used or expires.
 */
export const SIGN_IN_LINKS_PER_USER = 20;
/**
 * The longest redeeming a sign-in link (spending it, opening the browser
 * session) waits for the database before it answers 503 with `Retry-After`
 * rather than after the statement reply bound; a redemption still running
 * then rolls back, so the link stays unused for the person's retry.
 */
export const SIGN_IN_REDEEM_MAX_MS = 5_000;
/**
 * The longest a request's credential lookup (its token's row, and the
 * `last_used_at` touch) waits for the database before the request fails
 * `storage_unavailable` (503): the same 5 s the respond promises in all (its
 * pre-claim budget is what the lookup left of it). A frozen or cut-off
 * PostgreSQL would otherwise hold the request for the statement reply bound
 * (`PG_STATEMENT_REPLY_MAX_MS`).
 */
export const CREDENTIAL_LOOKUP_MAX_MS = PRE_CLAIM_BUDGET_MS;
/** A personal token's `last_used_at` is written at most this often, never once per request. */
export const TOKEN_LAST_USED_INTERVAL_MS = 60 * 1000;

// ---------------------------------------------------------------- HTTP and events
/** Outlives the clients' idle keep-alive (Node's and undici's are about 5 s). */
export const HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;
/**
 * A graceful stop waits this long for requests in flight once it stops accepting
 * (issue 16); what is left then is cut. Waits end at the stop's start, so only
 * short work (a respond, a page) is waited for; `CLARION_SHUTDOWN_DRAIN_S`.
 */
export const SHUTDOWN_DRAIN_MS = 10_000;
/**
 * How long a stop waits for its stopped agents' last reports (a turn's end)
 * to be written before it goes on: a store that refuses writes would
 * otherwise hold it for every report's retry limit.
 */
export const SHUTDOWN_REPORTS_MS = 5_000;
/** A stop's `/healthz` says `draining` this long before it stops accepting (`CLARION_DRAIN_DELAY_S`). */
export const SHUTDOWN_DRAIN_DELAY_MS = 0;
/**
 * After the drain, how long the rest of a stop may take (the agents' bounded
 * stop, the notifier, the leases, the store) before `clarion serve` stops its
 * agents and exits anyway: a database that no longer answers must not keep
 * the process from ending; `CLARION_SHUTDOWN_STOP_S`.
 */
export const SHUTDOWN_STOP_MS = 20_000;
/**
 * A refused WebSocket upgrade's reply (a few hundred bytes) waits this long to
 * reach the kernel before its socket is closed anyway.
 */
export const UPGRADE_REFUSAL_FLUSH_MAX_MS = 1_000;
/** WebSocket pings that keep proxies from closing an idle events socket. */
export const EVENTS_KEEPALIVE_INTERVAL_MS = 30_000;
/**
 * `/healthz`'s database check (a ping, then this replica's lease count): past
 * this it answers 503 `unavailable` at once, so a load balancer probing every
 * second or two hears of a frozen database in time rather than after the
 * statement reply bound.
 */
export const HEALTH_CHECK_MAX_MS = 2_000;
/**
 * How long `POST /api/v1/tasks` waits to learn whether its `cwd` is a
 * directory: a mount that stopped answering gets a 400 saying so, not a
 * request that hangs.
 */
export const CWD_CHECK_MAX_MS = 2_000;
/** `Retry-After` of every 503: a budget ran out or the storage failed; worth a retry soon. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_S = 2;
/**
 * A subscriber's frames of one tick leave in one write up to about this many
 * bytes; a larger burst is written as it goes.
 */
export const EVENTS_CORKED_BYTES_MAX = 64 * 1024;
/** How long the hub trusts a cached "may see this session" answer. */
export const EVENTS_VISIBILITY_TTL_MS = 10_000;

// ---------------------------------------------------------------- store
export const PG_CONNECT_TIMEOUT_MS = 5_000;
/**
 * PostgreSQL ends a transaction left idle this long (its replica frozen, its
 * network cut), freeing its session locks before a lease takeover (15 s)
 * needs them. No Clarion transaction waits on anything but the database.
 */
export const PG_IDLE_IN_TRANSACTION_MAX_MS = 10_000;
/** An idle PostgreSQL connection is probed (TCP keepalive) after this long. */
export const PG_KEEPALIVE_IDLE_MS = 10_000;
/**
 * A statement PostgreSQL has not answered in this long is given up and its
 * connection dropped. Keepalive cannot find a server frozen or cut off while
 * a statement waits for its reply (the kernel retransmits for about 15 min),
 * and every lock wait gives up well before (`STORE_LOCK_WAIT_MAX_MS`).
 */
export const PG_STATEMENT_REPLY_MAX_MS = 30_000;
/** The same bound for start-up schema steps: an index built over a large table takes long. */
export const PG_SCHEMA_STEP_REPLY_MAX_MS = 30 * 60 * 1000;
/**
 * SQLite's own wait for a lock. It waits inside the call, stopping the event
 * loop (see TOOLCHAIN), so it is zero: the store waits asynchronously instead.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 0;
/** The longest any store statement or transaction waits for a lock another connection holds. */
export const STORE_LOCK_WAIT_MAX_MS = 5_000;
/** The store's sleeps between tries for a busy lock: jittered, growing from min to max. */
export const STORE_LOCK_RETRY_MIN_MS = 2;
export const STORE_LOCK_RETRY_MAX_MS = 50;
/**
 * A server refused a SQLite data directory waits this long for the holder's
 * PID file: the holder writes it just after taking the lock, so one started
 * at the same moment may find none yet, or a crashed server's stale one.
 */
export const DATA_DIR_HOLDER_WAIT_MS = 2_000;
export const DATA_DIR_HOLDER_RECHECK_MS = 20;
/** The WAL checkpoint worker's period (off the request path). */
export const WAL_CHECKPOINT_INTERVAL_MS = 200;
export const WAL_CHECKPOINTER_STOP_TIMEOUT_MS = 5_000;
/** Planner statistics refresh. */
export const STATISTICS_INTERVAL_MS = 60 * 60 * 1000;

// ---------------------------------------------------------------- quotas (issue 17)
/** Agent processes running at once on behalf of one user (the task's owner); `CLARION_AGENTS_PER_USER`. */
export const AGENTS_PER_USER = 16;
/** Agent processes running at once on the whole server; `CLARION_AGENTS_PER_SERVER`. */
export const AGENTS_PER_SERVER = 64;
/**
 * Open MCP sessions of one principal (`holderKey`): all of a person's user
 * tokens, all the agent tokens they minted, or one session's agent token.
 */
export const MCP_SESSIONS_PER_PRINCIPAL = 16;
/**
 * Open MCP sessions of all principals of one user together: their own token
 * plus the agent token of each agent that may run for them.
 */
export const MCP_SESSIONS_PER_USER = MCP_SESSIONS_PER_PRINCIPAL * (1 + AGENTS_PER_USER);
/**
 * Open MCP sessions on the whole server, a memory bound. Above
 * `MCP_SESSIONS_PER_USER` (272), so no one user can fill it alone; it takes
 * four users at their own limit, each with every session busy, before anyone
 * is refused for the server's sake.
 */
export const MCP_SESSIONS_PER_SERVER = 1_000;
/**
 * Question bundles one agent holds open at once (asked, not yet answered,
 * skipped, cancelled or expired). An agent Clarion started is counted in its
 * own session; an external agent across all its person's external sessions,
 * since the client name that tells those apart is the client's to choose. An
 * honest agent asks one bundle and waits on it, and a bundle already carries
 * up to `MAX_QUESTIONS` questions; a few asked side by side, or left open
 * while it works on, stay far below 20. Only a runaway or hostile agent
 * reaches it, and then a person's inbox holds at most 80 of its questions.
 */
export const OPEN_ASKS_PER_AGENT = 20;
/**
 * Live external sessions (not ended, not deleted) one person's external
 * agents may have: one per MCP client name, opened by that name's first ask.
 * A person runs a handful of clients (Claude Code, Codex, Gemini CLI, an
 * editor or two); a client that renames itself for every ask would otherwise
 * make a task per ask. Deleting one of those tasks frees a place.
 */
export const EXTERNAL_SESSIONS_PER_PERSON = 16;
/**
 * Consent, action and form requests one session's agent holds open at once
 * (asked, the agent still waiting for their outcome). An agent waits on each
 * as it asks; even one running tool calls side by side needs a consent per
 * call, a handful at a time. 20 leaves room for that and stops a flood.
 */
export const OPEN_USER_INPUTS_PER_AGENT = 20;

// ---------------------------------------------------------------- answer links
/** An answer link lives as long as its item waits, and never longer than this (a bundle has no deadline). */
export const ANSWER_LINK_MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** Expired links still say "expired" this long; after it they are pruned and read as unknown. */
export const ANSWER_LINK_RETAIN_EXPIRED_MS = 7 * 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------- spent credentials
/**
 * How often each server deletes credentials that can never work again: used
 * and expired sign-in links, expired browser sessions, answer links past
 * `ANSWER_LINK_RETAIN_EXPIRED_MS` (`auth/spent-credentials.ts`). Every
 * replica runs it; a prune that finds nothing costs one indexed read a table.
 */
export const SPENT_CREDENTIAL_PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** Rows one statement of that prune deletes at most, so each holds SQLite's one connection briefly. */
export const SPENT_CREDENTIAL_PRUNE_BATCH_ROWS = 500;
/** Statements one prune runs at most: a larger backlog goes on at the next interval. */
export const SPENT_CREDENTIAL_PRUNE_BATCHES_PER_PASS = 20;

// ---------------------------------------------------------------- Web Push (issue 14)
/** How long a push service keeps a notice for an offline device when the item has no deadline. */
export const WEB_PUSH_DEFAULT_TTL_S = 60 * 60;
/** A notice older than a day helps nobody, even when its item waits longer. */
export const WEB_PUSH_MAX_TTL_S = 24 * 60 * 60;
/** One request to a push service, whole response included; the outbox's own bound may be shorter. */
export const WEB_PUSH_SEND_TIMEOUT_MS = 10_000;
// ---------------------------------------------------------------- notifications (issue 14)
/**
 * How long adding a channel waits for its host's addresses, to refuse one
 * that resolves to a private address at once; a slower name is judged at
 * each send instead.
 */
export const NOTIFY_TARGET_LOOKUP_TIMEOUT_MS = 2_000;
/**
 * Channel lookups running at once (`notify/lookup-gate.ts`): half of libuv's
 * default pool of four, so names that hang leave threads to read files.
 */
export const NOTIFY_DNS_LOOKUPS_MAX = 2;
/** Events arriving within this window cause one reconcile pass, not one each. */
export const NOTIFY_RECONCILE_DEBOUNCE_MS = 200;
/** A reconcile pass and an outbox poll run at least this often (reminders, retries, a lost wake-up). */
export const NOTIFY_RECONCILE_INTERVAL_MS = 5_000;
/** One send to one channel; past it the attempt is aborted and counts as failed (retryable). */
export const NOTIFY_SEND_TIMEOUT_MS = 10_000;
/** Backoff after the n-th failed attempt: base · 2^(n-1), jittered, capped… */
export const NOTIFY_RETRY_BASE_MS = 5_000;
export const NOTIFY_RETRY_MAX_MS = 60 * 60 * 1000;
/** …and a notice is given up once this long has passed since its first attempt. */
export const NOTIFY_GIVE_UP_AFTER_MS = 24 * 60 * 60 * 1000;
/**
 * A claimed row is not due again before this: longer than a send may take,
 * so only a server that died mid-send leaves a row for the lease to free.
 */
export const NOTIFY_CLAIM_LEASE_MS = NOTIFY_SEND_TIMEOUT_MS + 20_000;
/**
 * Shutdown waits at most this long for sends in flight: they may finish
 * until `NOTIFY_STOP_RECORD_MS` before it (a notice whose reply came is
 * recorded delivered, not sent again after the restart), then what is left
 * is aborted and recorded to be sent again.
 */
export const NOTIFY_STOP_TIMEOUT_MS = 2_000;
/** The end of `NOTIFY_STOP_TIMEOUT_MS` kept for recording the sends shutdown aborted. */
export const NOTIFY_STOP_RECORD_MS = 500;
/** Channels the worker starts lanes for per poll; the rest wait for the next poll. */
export const NOTIFY_LANES_PER_POLL = 100;
/**
 * An item's notices are pruned once it no longer waits and its last notice
 * settled (delivered or given up) this long ago: long enough to look into a
 * notice missed over a weekend. Each channel's last delivery (the settings
 * page shows it) is kept whatever its age.
 */
export const NOTIFY_OUTBOX_RETENTION_MS = 3 * 24 * 60 * 60 * 1000;
/** How often a reconcile pass also prunes the outbox (and at start). */
export const NOTIFY_OUTBOX_PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/**
 * Settled rows one prune looks at; a full batch prunes again at the next
 * pass (every `NOTIFY_RECONCILE_INTERVAL_MS`), so a backlog drains in steps
 * that each hold SQLite's one connection for milliseconds.
 */
export const NOTIFY_OUTBOX_PRUNE_BATCH_ROWS = 1_000;

// Cross-replica wake-ups and events (issue 16, part B).
/** Every subscriber of the wake bus resyncs from the store this often: how late a lost notification may be. */
export const WAKE_POLL_INTERVAL_MS = 2_000;
/** The listener connection's reconnect backoff after it died: doubles from the first, capped. */
export const WAKE_LISTENER_RETRY_MIN_MS = 100;
export const WAKE_LISTENER_RETRY_MAX_MS = 5_000;
/** Rows of the event log older than this are pruned; a replica lagging longer resyncs from the store. */
export const EVENT_LOG_RETENTION_MS = 10 * 60 * 1000;
/**
 * A responder whose claim another replica delivers reads the claim at every
 * wake about its session and at least this often, and announces it again
 * this often in case the first announcement was lost.
 */
export const ELSEWHERE_RECHECK_MS = 250;
export const ELSEWHERE_ANNOUNCE_INTERVAL_MS = 1_000;
/**
 * A consent, action or form answered on a replica whose registry does not
 * hold it (issue 16): how long the responder waits for the owner to apply
 * the answer before it takes it back and answers 503, how often it reads the
 * store meanwhile besides the owner's wake, and how long a forgotten
 * forwarded answer stays in the store.
 */
export const FORWARDED_ANSWER_WAIT_MS = 10_000;
export const FORWARDED_ANSWER_RECHECK_MS = 250;
export const FORWARDED_ANSWER_KEEP_MS = 10 * 60 * 1000;
/** How often the event log is pruned. */
export const EVENT_LOG_PRUNE_INTERVAL_MS = 60 * 1000;
// ---------------------------------------------------------------- replicas (issue 16)
/** How long a session lease lasts unless renewed (`CLARION_LEASE_S` replaces it). */
export const SESSION_LEASE_MS = 15_000;
/**
 * How often a replica heartbeats, renews its leases and looks for expired
 * ones to take over; at most a third of the lease, so two missed beats still
 * leave the lease held.
 */
export const REPLICA_HEARTBEAT_INTERVAL_MS = 5_000;
/**
 * How much sooner than its lease a replica stops trusting its leases from
 * memory (measured on its monotonic clock from when its last renew started):
 * past that, an action that needs a lease renews first and fences the
 * sessions it lost. Covers clock skew between replicas and the renew's own
 * latency; capped at a third of the lease so a short test lease still works.
 */
export const LEASE_FENCE_MARGIN_MS = 2_000;
/**
 * A replica whose lock connection ended (a PostgreSQL restart, a terminated
 * backend) reads dead to the others until it takes its lock again on a new
 * connection: first after the min, doubling while it fails, capped.
 */
export const REPLICA_LOCK_RETRY_MIN_MS = 100;
export const REPLICA_LOCK_RETRY_MAX_MS = 2_000;
/**
 * An agent start on a replica taking its lock again waits this long for it;
 * past that the start is refused for now and its message stays queued, to
 * run once the replica holds its lock again (`RequeueSessions`).
 */
export const REPLICA_LOCK_START_WAIT_MS = 5_000;
/** A replica row silent this long and holding no lease is deleted at the next start (generated IDs pile up). */
export const REPLICA_ROW_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
