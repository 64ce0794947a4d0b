/** `registerWebApp` through `app.request()`: files, fallback, caching, and the prefixes it never shadows. */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebApp, resolveInside } from '../../src/http/web-app.js';
import { BUILT_WEB_APP, builtPath } from '../../src/support/build-output.js';

describe('registerWebApp', () => {
  let root: string;
  let app: Hono;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'clarion-web-'));
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>app</title>');
    await writeFile(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
    await writeFile(join(root, 'assets', 'index-abc123.css'), 'body{}');
    app = new Hono();
    registerWebApp(app, { root });
    // Registered after the web app on purpose: the prefixes must still reach them.
    app.get('/api/v1/me', (c) => c.json({ me: true }));
    app.get('/healthz', (c) => c.json({ ok: true }));
    app.get('/auth/sign-in', (c) => c.text('sign-in'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('serves index.html at / and for client routes, never cached', async () => {
    for (const path of ['/', '/sessions/abc', '/anything/deep']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.text()).toContain('<title>app</title>');
    }
  });

  it('serves hashed assets with their type and a long cache', async () => {
    const js = await app.request('/assets/index-abc123.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const css = await app.request('/assets/index-abc123.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers 404 for a missing asset instead of the app', async () => {
    expect((await app.request('/assets/missing.js')).status).toBe(404);
    expect((await app.request('/favicon.ico')).status).toBe(404);
  });

  it('never shadows the server prefixes', async () => {
    expect(await (await app.request('/api/v1/me')).json()).toEqual({ me: true });
    expect(await (await app.request('/healthz')).json()).toEqual({ ok: true });
    expect(await (await app.request('/auth/sign-in')).text()).toBe('sign-in');
    for (const path of ['/api/v1/unknown', '/mcp', '/debug/vars', '/metrics', '/auth/other']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type') ?? '', path).not.toContain('text/html');
    }
  });

  it('does not serve POSTs or paths outside the root', async () => {
    expect((await app.request('/', { method: 'POST' })).status).toBe(404);
    // URL parsing folds the dots away; what remains is a client route, never the file.
    const escaped = await app.request('/%2e%2e/%2e%2e/etc/passwd');
    expect(await escaped.text()).toContain('<title>app</title>');
    expect(resolveInside(root, '/../secret')).toBeUndefined();
    expect(resolveInside(root, '/%2e%2e/secret')).toBeUndefined();
    expect(resolveInside(root, '/assets/a.js')).toBe(join(root, 'assets', 'a.js'));
  });

  it('answers HEAD without a body', async () => {
    const response = await app.request('/sessions/x', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });
});

/**
 * The app `npm run build` made (the suite builds it first): Vite warns of a chunk above 500 kB,
 * and a page loads only the catalogs of the languages it shows, so German and Japanese are chunks
 * of their own that the page does not load at start. The server caches them as any hashed asset.
 * `npm start` builds it printing nothing, which a new user could read as an error.
 */
describe('the built web app', () => {
  const root = builtPath(BUILT_WEB_APP);
  const app = new Hono();
  registerWebApp(app, { root });

  it('has no chunk Vite warns of, and loads no other language’s words at start', async () => {
    const scripts = (await readdir(join(root, 'assets'))).filter((name) => name.endsWith('.js'));
    for (const name of scripts) {
      const { size } = await stat(join(root, 'assets', name));
      expect(size, name).toBeLessThan(500 * 1000);
    }
    const html = await readFile(join(root, 'index.html'), 'utf8');
    const loadedAtStart = [...html.matchAll(/\/assets\/([\w-]+\.js)/g)].map((match) => match[1]);
    expect(loadedAtStart.length).toBeGreaterThan(0);
    for (const language of ['de', 'ja']) {
      const chunk = scripts.find((name) => name.startsWith(`${language}-`));
      expect(chunk, language).toBeDefined();
      expect(loadedAtStart).not.toContain(chunk);
      const response = await app.request(`/assets/${chunk ?? ''}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
  });

  it('builds, as `npm start` builds it, printing nothing', async () => {
    // The web app's build among the commands `npm start` runs, through the scripts it names.
    const repository = fileURLToPath(new URL('../../', import.meta.url));
    const { scripts } = JSON.parse(await readFile(join(repository, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const commands = (script: string): string[] =>
      script.split('&&').flatMap((part) => {
        const command = part.trim();
        const named = /^npm run ([\w:-]+)/.exec(command)?.[1];
        return named === undefined ? [command] : commands(scripts[named] ?? '');
      });
    const webBuilds = commands(scripts.start ?? '').filter((command) =>
      command.startsWith('vite build --config web/vite.config.ts'),
    );
    expect(webBuilds).toHaveLength(1);
    const outDir = await mkdtemp(join(tmpdir(), 'clarion-web-build-'));
    try {
      const args = [...(webBuilds[0] ?? '').split(' ').slice(1), '--outDir', outDir];
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ['node_modules/vite/bin/vite.js', ...args, '--emptyOutDir'],
        { cwd: repository, timeout: 60_000 },
      );
      expect(stdout + stderr).toBe('');
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  }, 60_000);
});
