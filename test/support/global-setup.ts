/**
 * Gives every test file a real PostgreSQL for the whole run (see
 * `embedded-postgres.ts`): each test creates its own databases on it.
 */
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgresServer('clarion-test-pg');
  project.provide('pgAdminUrl', server.adminUrl);
  return () => server.stop();
}
