/**
 * Configuration from the environment. Every setting has a default that makes
 * `npm start` work on a fresh clone; a bad value is one clear error naming the
 * variable.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { AgentProfileConfigError, loadAgentProfiles } from './agents/profiles.js';
import type { AgentProfile } from './agents/runtime.js';
import { adminTokenProblem } from './auth/bootstrap.js';
import type { DatabaseTarget } from './store/index.js';
import {
  AGENT_IDLE_MS,
  AGENT_CANCEL_GRACE_MS,
  AGENT_START_TIMEOUT_MS,
  AGENT_STOP_GRACE_MS,
  AGENTS_PER_SERVER,
  AGENTS_PER_USER,
  SESSION_LEASE_MS,
  SHUTDOWN_DRAIN_DELAY_MS,
  SHUTDOWN_DRAIN_MS,
  SHUTDOWN_STOP_MS,
} from './tunables.js';
import type { AgentQuotaLimits } from './turns/agent-quota.js';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly database: DatabaseTarget;
  readonly logLevel: string;
  /** Presets the first admin's API token, for automation. */
  readonly adminToken: string | undefined;
  /** The browser-facing origin when a TLS proxy sits in front of Clarion. */
  readonly publicOrigin: string | undefined;
  /** Web Push's VAPID contact (`mailto:` or `https:`); see `notify/vapid.ts` `vapidSubject`. */
  readonly vapidSubject?: string | undefined;
  /** Agent command lines by profile name; always has the demo agent. */
  readonly agentProfiles: ReadonlyMap<string, AgentProfile>;
  /** Running agents per user and per server; the tunables' defaults when absent. */
  readonly agentQuota?: AgentQuotaLimits;
  /**
   * How long an agent may take to start, to stop after SIGTERM, and to end a
   * turn after a cancel; the tunables' defaults when absent.
   */
  readonly agentTimings?: {
    readonly startTimeoutMs: number;
    readonly stopGraceMs: number;
    readonly cancelGraceMs: number;
  };
  /** How long an agent may sit idle before it is stopped; the tunable's default when absent. */
  readonly agentIdleMs?: number;
  /** Host suffixes notification channels may send to; empty or absent allows every host. */
  readonly notifyAllowedHosts?: readonly string[];
  /** This server's name among replicas on one database; generated per start when unset. */
  readonly replicaId?: string;
  /** How long a session lease lasts unless renewed; the tunable's default when absent. */
  readonly leaseMs?: number;
  /** How long a stop says `draining` on `/healthz` before it stops accepting; none when absent. */
  readonly drainDelayMs?: number;
  /** How long a stop waits for requests in flight once it stops accepting; the tunable's default when absent. */
  readonly shutdownDrainMs?: number;
  /** How long the rest of a stop may take after its drain; the tunable's default when absent. */
  readonly shutdownStopMs?: number;
}

export const DEFAULT_PORT = 7420;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_DATA_DIR = './.clarion';

/**
 * Where this machine reaches Clarion over plain HTTP, given where it listens: a
 * wildcard listen address (every interface) is no address to open, so its
 * loopback stands for it, in the printed lines and in the links made without a
 * public origin. An IPv6 host needs brackets in a URL.
 */
export function listenUrl(host: string, port: number): string {
  const reachable = WILDCARD_LOOPBACK[host] ?? host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${String(port)}`;
}

const WILDCARD_LOOPBACK: Readonly<Record<string, string>> = { '0.0.0.0': '127.0.0.1', '::': '::1' };

export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const nonEmpty = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} must not be empty`);

/**
 * A number as people write one in an environment file: decimal digits with an
 * optional fraction. `z.coerce.number` would also read `0x1f00`, `1e3` or
 * `Infinity`, so a port typed in hex served somewhere nobody asked for.
 */
const decimal = <Out>(message: string, number: z.ZodType<Out, number>) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/, message)
    .transform(Number)
    .pipe(number);

const quota = (name: string) =>
  decimal(
    `${name} must be a number`,
    z.number().int(`${name} must be a whole number`).min(1, `${name} must be at least 1`),
  );

/**
 * Seconds as milliseconds, at least one: a positive value that rounds to 0 ms
 * would be no wait at all (an agent's start timed out the moment it began).
 */
const toMs = (name: string) =>
  z
    .number()
    .transform((value) => Math.round(value * 1000))
    .refine((ms) => ms >= 1, `${name} must be at least 0.001`);

/** Seconds, fractions allowed (tests stop agents in half a second), read as milliseconds. */
const seconds = (name: string) =>
  decimal(
    `${name} must be a number of seconds`,
    z
      .number()
      .positive(`${name} must be more than 0`)
      .max(3600, `${name} must be at most 3600`)
      .pipe(toMs(name)),
  );

const environment = z.object({
  CLARION_PORT: decimal(
    'CLARION_PORT must be a number',
    z
      .number()
      .int('CLARION_PORT must be a whole number')
      .min(0, 'CLARION_PORT must be between 0 and 65535')
      .max(65535, 'CLARION_PORT must be between 0 and 65535'),
  ).default(DEFAULT_PORT),
  // Checked here: a host the listen cannot take failed only after the database was opened.
  CLARION_HOST: nonEmpty('CLARION_HOST')
    .refine(isListenHost, {
      error:
        'CLARION_HOST must be an IP address (IPv6 without brackets) or a host name, e.g. 0.0.0.0',
    })
    .default(DEFAULT_HOST),
  CLARION_DATA_DIR: nonEmpty('CLARION_DATA_DIR').default(DEFAULT_DATA_DIR),
  DATABASE_URL: nonEmpty('DATABASE_URL')
    .refine((url) => /^postgres(ql)?:\/\//.test(url), {
      error: 'DATABASE_URL must start with postgres:// or postgresql://',
    })
    .optional(),
  CLARION_PG_PREPARED_STATEMENTS: decimal(
    'CLARION_PG_PREPARED_STATEMENTS must be a number',
    z
      .number()
      .int('CLARION_PG_PREPARED_STATEMENTS must be a whole number')
      .min(0, 'CLARION_PG_PREPARED_STATEMENTS must be between 0 and 10000')
      .max(10_000, 'CLARION_PG_PREPARED_STATEMENTS must be between 0 and 10000'),
  ).optional(),
  CLARION_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'CLARION_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  CLARION_ADMIN_TOKEN: z
    .string()
    .superRefine((value, ctx) => {
      const problem = adminTokenProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  CLARION_AGENTS_PER_USER: quota('CLARION_AGENTS_PER_USER').default(AGENTS_PER_USER),
  CLARION_AGENTS_PER_SERVER: quota('CLARION_AGENTS_PER_SERVER').default(AGENTS_PER_SERVER),
  CLARION_AGENT_START_TIMEOUT_S: seconds('CLARION_AGENT_START_TIMEOUT_S').optional(),
  CLARION_AGENT_STOP_GRACE_S: seconds('CLARION_AGENT_STOP_GRACE_S').optional(),
  CLARION_AGENT_CANCEL_GRACE_S: seconds('CLARION_AGENT_CANCEL_GRACE_S').optional(),
  CLARION_AGENT_IDLE_S: decimal(
    'CLARION_AGENT_IDLE_S must be a number of seconds',
    z
      .number()
      .positive('CLARION_AGENT_IDLE_S must be more than 0')
      .max(7 * 24 * 3600, 'CLARION_AGENT_IDLE_S must be at most a week')
      .pipe(toMs('CLARION_AGENT_IDLE_S')),
  ).optional(),
  CLARION_PUBLIC_ORIGIN: z
    .url({ protocol: /^https?$/, error: 'CLARION_PUBLIC_ORIGIN must be an http(s) URL' })
    // Clarion is served at the root of its origin: a path would be dropped from every link.
    .refine((url) => isBareOrigin(new URL(url)), {
      error:
        'CLARION_PUBLIC_ORIGIN must be an origin only (scheme, host and port, no path, query or #): Clarion is served at the root of its address',
    })
    .transform((url) => new URL(url).origin)
    .optional(),
  CLARION_VAPID_SUBJECT: z
    .string()
    .trim()
    .refine((value) => /^mailto:[^@\s]+@[^@\s]+$/.test(value) || /^https:\/\/\S+$/.test(value), {
      error: 'CLARION_VAPID_SUBJECT must be a mailto: address or an https:// URL',
    })
    .optional(),
  CLARION_NOTIFY_ALLOWED_HOSTS: z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((entry) => entry.trim().toLowerCase())
        .filter((entry) => entry !== ''),
    )
    .refine((hosts) => hosts.every((host) => /^\.?[a-z0-9.:[\]-]+$/.test(host)), {
      error: 'CLARION_NOTIFY_ALLOWED_HOSTS must be a comma-separated list of host names',
    })
    // No hosts would allow any host: a list that meant to restrict must not fail open.
    .refine((hosts) => hosts.length > 0, {
      error:
        'CLARION_NOTIFY_ALLOWED_HOSTS names no host; unset it to allow any host, or list the hosts to allow',
    })
    .optional(),
  CLARION_REPLICA_ID: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
      error:
        'CLARION_REPLICA_ID must be 1 to 63 letters, digits, dots, dashes or underscores, starting with a letter or digit',
    })
    .optional(),
  CLARION_LEASE_S: decimal(
    'CLARION_LEASE_S must be a number of seconds',
    z
      .number()
      .min(1, 'CLARION_LEASE_S must be at least 1')
      .max(600, 'CLARION_LEASE_S must be at most 600')
      .transform((value) => Math.round(value * 1000)),
  ).optional(),
  CLARION_DRAIN_DELAY_S: decimal(
    'CLARION_DRAIN_DELAY_S must be a number of seconds',
    z
      .number()
      .min(0, 'CLARION_DRAIN_DELAY_S must be at least 0')
      .max(300, 'CLARION_DRAIN_DELAY_S must be at most 300')
      .transform((value) => Math.round(value * 1000)),
  ).optional(),
  CLARION_SHUTDOWN_DRAIN_S: decimal(
    'CLARION_SHUTDOWN_DRAIN_S must be a number of seconds',
    z
      .number()
      .min(0, 'CLARION_SHUTDOWN_DRAIN_S must be at least 0')
      .max(300, 'CLARION_SHUTDOWN_DRAIN_S must be at most 300')
      .transform((value) => Math.round(value * 1000)),
  ).optional(),
  CLARION_SHUTDOWN_STOP_S: decimal(
    'CLARION_SHUTDOWN_STOP_S must be a number of seconds',
    z
      .number()
      .min(1, 'CLARION_SHUTDOWN_STOP_S must be at least 1')
      .max(300, 'CLARION_SHUTDOWN_STOP_S must be at most 300')
      .transform((value) => Math.round(value * 1000)),
  ).optional(),
});

function isBareOrigin(url: URL): boolean {
  return url.pathname === '/' && url.search === '' && url.hash === '' && !url.href.endsWith('?');
}

/** Reads the configuration; unset and empty variables take their defaults. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = environment.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => issue.message).join('; '));
  }
  const settings = parsed.data;
  let agentProfiles: ReadonlyMap<string, AgentProfile>;
  try {
    agentProfiles = loadAgentProfiles(env);
  } catch (error) {
    if (error instanceof AgentProfileConfigError) throw new ConfigError(error.message);
    throw error;
  }
  const dataDir = resolve(settings.CLARION_DATA_DIR);
  return {
    host: settings.CLARION_HOST,
    port: settings.CLARION_PORT,
    dataDir,
    database: settings.DATABASE_URL
      ? {
          driver: 'postgres',
          url: settings.DATABASE_URL,
          ...(settings.CLARION_PG_PREPARED_STATEMENTS === undefined
            ? {}
            : { preparedStatements: settings.CLARION_PG_PREPARED_STATEMENTS }),
        }
      : { driver: 'sqlite', dataDir },
    logLevel: settings.CLARION_LOG_LEVEL,
    adminToken: settings.CLARION_ADMIN_TOKEN,
    publicOrigin: settings.CLARION_PUBLIC_ORIGIN,
    vapidSubject: settings.CLARION_VAPID_SUBJECT,
    agentProfiles,
    agentQuota: {
      perUser: settings.CLARION_AGENTS_PER_USER,
      perServer: settings.CLARION_AGENTS_PER_SERVER,
    },
    agentTimings: {
      startTimeoutMs: settings.CLARION_AGENT_START_TIMEOUT_S ?? AGENT_START_TIMEOUT_MS,
      stopGraceMs: settings.CLARION_AGENT_STOP_GRACE_S ?? AGENT_STOP_GRACE_MS,
      cancelGraceMs: settings.CLARION_AGENT_CANCEL_GRACE_S ?? AGENT_CANCEL_GRACE_MS,
    },
    agentIdleMs: settings.CLARION_AGENT_IDLE_S ?? AGENT_IDLE_MS,
    notifyAllowedHosts: settings.CLARION_NOTIFY_ALLOWED_HOSTS ?? [],
    replicaId: settings.CLARION_REPLICA_ID ?? generatedReplicaId(),
    leaseMs: settings.CLARION_LEASE_S ?? SESSION_LEASE_MS,
    drainDelayMs: settings.CLARION_DRAIN_DELAY_S ?? SHUTDOWN_DRAIN_DELAY_MS,
    shutdownDrainMs: settings.CLARION_SHUTDOWN_DRAIN_S ?? SHUTDOWN_DRAIN_MS,
    shutdownStopMs: settings.CLARION_SHUTDOWN_STOP_S ?? SHUTDOWN_STOP_MS,
  };
}

/** A replica ID unique per start, readable in logs: the host name and a random suffix. */
function generatedReplicaId(): string {
  const host = hostname()
    .replace(/[^A-Za-z0-9.-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 40);
  return `${host || 'clarion'}-${randomBytes(4).toString('hex')}`;
}

/** A host name's labels: letters, digits and inner hyphens, each 1 to 63 long (RFC 1123). */
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** Whether `host` is what a listen takes: an IP address, or a name to resolve. */
function isListenHost(host: string): boolean {
  return isIP(host) !== 0 || HOST_NAME.test(host);
}
