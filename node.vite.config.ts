/**
 * Builds what runs under Node into `dist/node/`: the `clarion` command
 * (`cli.js`, what `npm start` runs) and the demo agent (`demo-agent.js`,
 * started for every session of the `demo` profile), with the modules they
 * share in common chunks. Loaded from a few files instead of hundreds of
 * modules, the server starts on about 40 % of the CPU and the demo agent on
 * half (`src/support/build-output.ts` finds them).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // No public/ or index.html: these are Node programs.
  publicDir: false,
  logLevel: 'warn',
  build: {
    ssr: true,
    outDir: source('./dist/node'),
    emptyOutDir: true,
    target: 'node20',
    sourcemap: true,
    rolldownOptions: {
      input: {
        cli: source('./src/cli.ts'),
        'demo-agent': source('./src/agents/demo-agent/main.ts'),
      },
      output: { format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
      // A native addon is loaded from its package; optional native speed-ups stay optional.
      external: ['better-sqlite3', 'pg-native', 'bufferutil', 'utf-8-validate'],
    },
  },
  // Dependencies too: finding and loading them module by module is most of a start's cost.
  ssr: { noExternal: true, target: 'node' },
});
