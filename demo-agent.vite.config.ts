/**
 * Builds the demo agent into one file, `dist/demo-agent/main.js`, which the
 * `demo` profile runs. Clarion starts an agent process for every session, and
 * loaded from one file instead of a few hundred modules the agent starts on
 * about half the CPU.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  // No public/ or index.html: this is a Node program.
  publicDir: false,
  logLevel: 'warn',
  build: {
    ssr: fileURLToPath(new URL('./src/agents/demo-agent/main.ts', import.meta.url)),
    outDir: fileURLToPath(new URL('./dist/demo-agent', import.meta.url)),
    emptyOutDir: true,
    target: 'node20',
    sourcemap: true,
    rolldownOptions: { output: { entryFileNames: 'main.js', format: 'esm' } },
  },
  // Dependencies too: finding and loading them module by module is most of a start's cost.
  ssr: { noExternal: true, target: 'node' },
});
