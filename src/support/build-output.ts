/**
 * Where `npm run build` writes what Clarion runs besides the module asking:
 * the web app (`dist/web`), and the server and demo agent bundles
 * (`dist/node`, `node.vite.config.ts`). The code asking runs from source under
 * vitest, compiled by tsc into `dist/src/`, or inlined into a bundle in
 * `dist/node/`; from each, `dist/` is the folder beside the nearest
 * `package.json` above it.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Clarion’s package.json is missing above its code');
    dir = parent;
  }
  return dir;
}

const DIST = join(packageRoot(), 'dist');

/** The absolute path of `relative` inside `dist/`. */
export function builtPath(relative: string): string {
  return join(DIST, relative);
}

/** The `clarion` command (`serve`, `mcp-stdio`, `sign-in-link`), as `npm start` runs it. */
export const BUILT_CLI = 'node/cli.js';
export const BUILT_DEMO_AGENT = 'node/demo-agent.js';
export const BUILT_WEB_APP = 'web';
