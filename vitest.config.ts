import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Three files at a time on a 2-core machine (vitest's default there is one): the suites
    // spend much of their time waiting on timers, processes, browsers and databases, and with
    // two workers the CPU still idled about a sixth of the run.
    maxWorkers: 3,
    // Files share their worker's module cache: importing the server's module graph once per
    // worker instead of once per file saves about two of the suite's minutes here. A file must
    // then leave nothing running when it ends; what it leaves fails the file that runs next.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
