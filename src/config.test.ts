import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, listenUrl, loadConfig } from './config.js';
import {
  AGENT_CANCEL_GRACE_MS,
  AGENT_START_TIMEOUT_MS,
  AGENT_STOP_GRACE_MS,
  AGENTS_PER_SERVER,
  AGENTS_PER_USER,
  SESSION_LEASE_MS,
  SHUTDOWN_DRAIN_MS,
  SHUTDOWN_STOP_MS,
} from './tunables.js';

describe('loadConfig', () => {
  it('defaults to SQLite in ./.clarion on 127.0.0.1:7420', () => {
    expect(loadConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 7420,
      dataDir: resolve('.clarion'),
      database: { driver: 'sqlite', dataDir: resolve('.clarion') },
      logLevel: 'info',
      adminToken: undefined,
    });
    expect([...loadConfig({}).agentProfiles.keys()]).toEqual(['demo']);
  });

  it('reads the running-agent quotas, 8 per user and 32 per server unless set', () => {
    expect(loadConfig({}).agentQuota).toEqual({
      perUser: AGENTS_PER_USER,
      perServer: AGENTS_PER_SERVER,
    });
    expect(
      loadConfig({ CLARION_AGENTS_PER_USER: '2', CLARION_AGENTS_PER_SERVER: '100' }).agentQuota,
    ).toEqual({ perUser: 2, perServer: 100 });
    expect(() => loadConfig({ CLARION_AGENTS_PER_USER: '0' })).toThrow(
      'CLARION_AGENTS_PER_USER must be at least 1',
    );
    expect(() => loadConfig({ CLARION_AGENTS_PER_SERVER: 'many' })).toThrow(
      'CLARION_AGENTS_PER_SERVER must be a number',
    );
  });

  it('reads the Web Push contact', () => {
    expect(loadConfig({}).vapidSubject).toBeUndefined();
    expect(loadConfig({ CLARION_VAPID_SUBJECT: 'mailto:ops@example.org' }).vapidSubject).toBe(
      'mailto:ops@example.org',
    );
  });

  it('reads the agent start timeout, stop grace and cancel grace in seconds, 30, 5 and 10 unless set', () => {
    expect(loadConfig({}).agentTimings).toEqual({
      startTimeoutMs: AGENT_START_TIMEOUT_MS,
      stopGraceMs: AGENT_STOP_GRACE_MS,
      cancelGraceMs: AGENT_CANCEL_GRACE_MS,
    });
    expect(AGENT_STOP_GRACE_MS).toBe(5_000);
    expect(AGENT_CANCEL_GRACE_MS).toBe(10_000);
    expect(
      loadConfig({
        CLARION_AGENT_START_TIMEOUT_S: '2',
        CLARION_AGENT_STOP_GRACE_S: '0.5',
        CLARION_AGENT_CANCEL_GRACE_S: '1.5',
      }).agentTimings,
    ).toEqual({ startTimeoutMs: 2_000, stopGraceMs: 500, cancelGraceMs: 1_500 });
    expect(() => loadConfig({ CLARION_AGENT_CANCEL_GRACE_S: '-1' })).toThrow(
      'CLARION_AGENT_CANCEL_GRACE_S must be more than 0',
    );
    expect(() => loadConfig({ CLARION_AGENT_STOP_GRACE_S: '0' })).toThrow(
      'CLARION_AGENT_STOP_GRACE_S must be more than 0',
    );
    expect(() => loadConfig({ CLARION_AGENT_START_TIMEOUT_S: 'soon' })).toThrow(
      'CLARION_AGENT_START_TIMEOUT_S must be a number of seconds',
    );
  });

  it('refuses a duration too short to be a millisecond, which would have read as none at all', () => {
    for (const name of [
      'CLARION_AGENT_START_TIMEOUT_S',
      'CLARION_AGENT_STOP_GRACE_S',
      'CLARION_AGENT_CANCEL_GRACE_S',
      'CLARION_AGENT_IDLE_S',
    ]) {
      expect(() => loadConfig({ [name]: '0.0004' })).toThrow(`${name} must be at least 0.001`);
    }
    expect(loadConfig({ CLARION_AGENT_STOP_GRACE_S: '0.001' }).agentTimings?.stopGraceMs).toBe(1);
  });

  it.each(['0.0.0.0', '::', '::1', 'localhost', 'clarion.internal', 'host-1.example.com.'])(
    'takes %j as the host to listen on',
    (host) => {
      expect(loadConfig({ CLARION_HOST: host }).host).toBe(host);
    },
  );

  it('treats empty variables as unset', () => {
    expect(loadConfig({ CLARION_PORT: '', DATABASE_URL: '' }).port).toBe(7420);
  });

  it('selects PostgreSQL when DATABASE_URL is set', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://clarion@db/clarion',
      CLARION_PORT: '8080',
      CLARION_HOST: '0.0.0.0',
      CLARION_DATA_DIR: '/var/lib/clarion',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      dataDir: '/var/lib/clarion',
      database: { driver: 'postgres', url: 'postgresql://clarion@db/clarion' },
    });
  });

  it.each([
    [{ CLARION_PORT: 'x' }, 'CLARION_PORT must be a number'],
    [{ CLARION_PORT: '70000' }, 'CLARION_PORT must be between 0 and 65535'],
    [{ CLARION_PORT: '80.5' }, 'CLARION_PORT must be a whole number'],
    [{ CLARION_HOST: '   ' }, 'CLARION_HOST must not be empty'],
    // Each failed only at listen, after the data directory and database were made.
    [{ CLARION_HOST: 'not a host' }, 'CLARION_HOST must be an IP address'],
    [{ CLARION_HOST: 'http://0.0.0.0' }, 'CLARION_HOST must be an IP address'],
    [{ CLARION_HOST: '[::1]' }, 'CLARION_HOST must be an IP address (IPv6 without brackets)'],
    [{ DATABASE_URL: 'sqlite://x' }, 'DATABASE_URL must start with postgres://'],
    [{ CLARION_LOG_LEVEL: 'loud' }, 'CLARION_LOG_LEVEL must be one of'],
    [{ CLARION_VAPID_SUBJECT: 'ops@example.org' }, 'CLARION_VAPID_SUBJECT must be a mailto:'],
    [{ CLARION_VAPID_SUBJECT: 'http://example.org' }, 'CLARION_VAPID_SUBJECT must be a mailto:'],
    // Read as numbers by a bare coercion: a port in hex served on 7936.
    [{ CLARION_PORT: '0x1f00' }, 'CLARION_PORT must be a number'],
    [{ CLARION_PORT: '1e3' }, 'CLARION_PORT must be a number'],
    [{ CLARION_DRAIN_DELAY_S: '0x10' }, 'CLARION_DRAIN_DELAY_S must be a number of seconds'],
    [{ CLARION_AGENTS_PER_USER: 'Infinity' }, 'CLARION_AGENTS_PER_USER must be a number'],
    [{ CLARION_AGENT_STOP_GRACE_S: '0b11' }, 'CLARION_AGENT_STOP_GRACE_S must be a number'],
    // A path behind a path-prefixed proxy was dropped from every link.
    [
      { CLARION_PUBLIC_ORIGIN: 'https://x.example.com/clarion' },
      'CLARION_PUBLIC_ORIGIN must be an origin only',
    ],
    [
      { CLARION_PUBLIC_ORIGIN: 'https://x.example.com/?a=1' },
      'CLARION_PUBLIC_ORIGIN must be an origin only',
    ],
    // An allow-list with no host would allow any: it must not fail open.
    [{ CLARION_NOTIFY_ALLOWED_HOSTS: ',,' }, 'CLARION_NOTIFY_ALLOWED_HOSTS names no host'],
    [{ CLARION_SHUTDOWN_DRAIN_S: '-1' }, 'CLARION_SHUTDOWN_DRAIN_S must be at least 0'],
    [{ CLARION_SHUTDOWN_DRAIN_S: '301' }, 'CLARION_SHUTDOWN_DRAIN_S must be at most 300'],
    [{ CLARION_SHUTDOWN_DRAIN_S: 'soon' }, 'CLARION_SHUTDOWN_DRAIN_S must be a number of seconds'],
    [{ CLARION_SHUTDOWN_STOP_S: '0' }, 'CLARION_SHUTDOWN_STOP_S must be at least 1'],
    [{ CLARION_SHUTDOWN_STOP_S: 'soon' }, 'CLARION_SHUTDOWN_STOP_S must be a number of seconds'],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads decimal numbers and an origin with or without its trailing slash', () => {
    expect(loadConfig({ CLARION_PORT: ' 8080 ' }).port).toBe(8080);
    expect(loadConfig({ CLARION_DRAIN_DELAY_S: '.5' }).drainDelayMs).toBe(500);
    expect(loadConfig({}).shutdownDrainMs).toBe(SHUTDOWN_DRAIN_MS);
    expect(loadConfig({ CLARION_SHUTDOWN_DRAIN_S: '1.5' }).shutdownDrainMs).toBe(1_500);
    expect(loadConfig({}).shutdownStopMs).toBe(SHUTDOWN_STOP_MS);
    expect(loadConfig({ CLARION_SHUTDOWN_STOP_S: '2.5' }).shutdownStopMs).toBe(2_500);
    expect(loadConfig({ CLARION_PUBLIC_ORIGIN: 'https://x.example.com/' }).publicOrigin).toBe(
      'https://x.example.com',
    );
    expect(loadConfig({ CLARION_PUBLIC_ORIGIN: 'https://x.example.com:8443' }).publicOrigin).toBe(
      'https://x.example.com:8443',
    );
  });

  it('reads CLARION_NOTIFY_ALLOWED_HOSTS as a list, and names it when it is wrong', () => {
    expect(loadConfig({}).notifyAllowedHosts).toEqual([]);
    expect(
      loadConfig({ CLARION_NOTIFY_ALLOWED_HOSTS: ' ntfy.sh, Example.com ,' }).notifyAllowedHosts,
    ).toEqual(['ntfy.sh', 'example.com']);
    expect(() => loadConfig({ CLARION_NOTIFY_ALLOWED_HOSTS: 'https://x.test/' })).toThrow(
      /CLARION_NOTIFY_ALLOWED_HOSTS/,
    );
  });

  it('reads the replica ID, else generates one per start, and the lease in seconds', () => {
    const generated = loadConfig({}).replicaId ?? '';
    expect(generated).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/);
    expect(loadConfig({}).replicaId).not.toBe(generated);
    expect(loadConfig({ CLARION_REPLICA_ID: ' web-1.eu_west ' }).replicaId).toBe('web-1.eu_west');
    expect(loadConfig({}).leaseMs).toBe(SESSION_LEASE_MS);
    expect(loadConfig({ CLARION_LEASE_S: '2.5' }).leaseMs).toBe(2_500);
  });

  it('prepares PostgreSQL statements by default, as many as CLARION_PG_PREPARED_STATEMENTS says', () => {
    const url = 'postgres://clarion@db.test/clarion';
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ driver: 'postgres', url });
    expect(loadConfig({ DATABASE_URL: url, CLARION_PG_PREPARED_STATEMENTS: '0' }).database).toEqual(
      { driver: 'postgres', url, preparedStatements: 0 },
    );
    expect(() => loadConfig({ DATABASE_URL: url, CLARION_PG_PREPARED_STATEMENTS: '-1' })).toThrow(
      /CLARION_PG_PREPARED_STATEMENTS must be between 0 and 10000/,
    );
    expect(() => loadConfig({ DATABASE_URL: url, CLARION_PG_PREPARED_STATEMENTS: 'many' })).toThrow(
      /CLARION_PG_PREPARED_STATEMENTS must be a number/,
    );
  });

  it.each([
    [{ CLARION_REPLICA_ID: 'has space' }, /CLARION_REPLICA_ID must be 1 to 63 letters/],
    [{ CLARION_REPLICA_ID: '-leading' }, /CLARION_REPLICA_ID/],
    [{ CLARION_REPLICA_ID: 'x'.repeat(64) }, /CLARION_REPLICA_ID/],
    [{ CLARION_LEASE_S: 'soon' }, /CLARION_LEASE_S must be a number of seconds/],
    [{ CLARION_LEASE_S: '0.5' }, /CLARION_LEASE_S must be at least 1/],
    [{ CLARION_LEASE_S: '601' }, /CLARION_LEASE_S must be at most 600/],
  ])('names a bad replica setting %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('listenUrl', () => {
  it('brackets an IPv6 host and leaves names and IPv4 addresses as they are', () => {
    expect(listenUrl('::1', 7420)).toBe('http://[::1]:7420');
    expect(listenUrl('fd00::5', 8080)).toBe('http://[fd00::5]:8080');
    expect(listenUrl('127.0.0.1', 7420)).toBe('http://127.0.0.1:7420');
    expect(listenUrl('clarion.internal', 80)).toBe('http://clarion.internal:80');
  });

  it('names every interface by the loopback this machine opens it at', () => {
    expect(listenUrl('0.0.0.0', 7420)).toBe('http://127.0.0.1:7420');
    expect(listenUrl('::', 8080)).toBe('http://[::1]:8080');
  });
});
