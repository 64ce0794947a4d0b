/**
 * DESIGN §3's "never" column is enforced by the linter, not by review: a
 * planted violation of each kind must fail `npm run lint`, and the product's
 * own sources must pass.
 */
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// The repository's own config; planted files are in no tsconfig, so type-aware rules are off.
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: [{ files: ['**/*.ts', '**/*.tsx'], ...tseslint.configs.disableTypeChecked }],
});

const BOUNDARY_RULES = new Set([
  'no-restricted-imports',
  'no-restricted-syntax',
  'import-x/no-cycle',
]);

/** The boundary messages ESLint gives `code` as if it were the file at `filePath`. */
async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => BOUNDARY_RULES.has(m.ruleId ?? ''))
    .map((m) => m.message);
}

describe('the folder boundaries', () => {
  it('refuses http/ calling the store', async () => {
    const errors = await boundaryErrors(
      'src/http/planted.ts',
      "import { getSession } from '../store/index.js';\nexport const planted = getSession;\n",
    );
    expect(errors).toEqual([expect.stringContaining('http never runs SQL')]);
  });

  it('lets http/ name the store’s types', async () => {
    const errors = await boundaryErrors(
      'src/http/planted.ts',
      "import type { Store } from '../store/index.js';\nexport type Planted = Store;\n",
    );
    expect(errors).toEqual([]);
  });

  it('refuses an import of another folder’s internals', async () => {
    const errors = await boundaryErrors(
      'src/turns/planted.ts',
      "import { claimBundle } from '../store/clarification-claims.js';\nexport const planted = claimBundle;\n",
    );
    expect(errors).toEqual([expect.stringContaining('through its index.ts')]);
  });

  it.each([
    ['src/user-input/planted.ts', '../store/index.js', 'user-input/ never imports store/'],
    ['src/store/planted.ts', '../clarification/index.js', 'store/ never imports clarification/'],
    ['src/clarification/planted.ts', '../http/app.js', 'clarification/ never imports http/'],
    ['src/agents/mcp/planted.ts', '../../http/auth.js', 'agents/ never imports http/'],
    ['src/wire/planted.ts', '../store/index.js', 'wire/ imports nothing'],
  ])('refuses %s importing %s', async (filePath, specifier, message) => {
    const errors = await boundaryErrors(
      filePath,
      `import { x } from '${specifier}';\nexport const planted = x;\n`,
    );
    expect(errors).toEqual(expect.arrayContaining([expect.stringContaining(message)]));
  });

  it('refuses the web app importing src/ beyond the wire', async () => {
    const errors = await boundaryErrors(
      'web/src/model/planted.ts',
      "import { x } from '../../../src/user-input/index.js';\nexport const planted = x;\n",
    );
    expect(errors).toEqual([expect.stringContaining('src/wire')]);
    expect(
      await boundaryErrors(
        'web/src/model/planted.ts',
        "import { MAX_QUESTIONS } from '../../../src/wire/limits.js';\nexport const planted = MAX_QUESTIONS;\n",
      ),
    ).toEqual([]);
  });

  it('refuses wire/ importing any package but zod', async () => {
    const errors = await boundaryErrors(
      'src/wire/planted.ts',
      "import { Hono } from 'hono';\nexport const planted = Hono;\n",
    );
    expect(errors).toEqual([expect.stringContaining('wire/ imports nothing but zod')]);
    expect(
      await boundaryErrors(
        'src/wire/planted.ts',
        "import { z } from 'zod';\nexport const planted = z.string();\n",
      ),
    ).toEqual([]);
  });

  it.each([
    ['src/http/planted.ts', "() => import('../store/index.js')", 'statically'],
    ['web/src/model/planted.ts', "() => import('../../../src/store/index.js')", 'statically'],
    ['src/http/planted.ts', '(where: string) => import(where)', 'computed import'],
  ])('refuses a dynamic import past the rules in %s: %s', async (filePath, load, message) => {
    const errors = await boundaryErrors(filePath, `export const planted = ${load};\n`);
    expect(errors).toEqual([expect.stringContaining(message)]);
  });

  it('lets a file load its own folder’s modules dynamically', async () => {
    const errors = await boundaryErrors(
      'src/planted.ts',
      "export const planted = () => import('./cli/serve.js');\n",
    );
    expect(errors).toEqual([]);
  });

  it('lets tests reach into internals', async () => {
    const errors = await boundaryErrors(
      'src/http/planted.test.ts',
      "import { claimBundle } from '../store/clarification-claims.js';\nexport const planted = claimBundle;\n",
    );
    expect(errors).toEqual([]);
  });
});
