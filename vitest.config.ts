import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Two files at a time: most suites wait on processes, browsers and databases rather than
    // the CPU, and vitest's default on a 2-core machine is one worker. Three kept the CPU busy
    // (23.5 min instead of 27) but starved timing-sensitive browser and MCP tests.
    maxWorkers: 2,
    // Files share their worker's module cache: importing the server's module graph once per
    // worker instead of once per file saves about two of the suite's minutes here. A file must
    // then leave nothing running when it ends; what it leaves fails the file that runs next.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
