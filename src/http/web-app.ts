/**
 * Serves the built web app (`dist/web`) for GET and HEAD: files under `root`
 * with their content type, `index.html` for client routes. Hashed assets
 * (`/assets/…`) are cached for a year; `index.html` is never cached, so a new
 * build reaches browsers on their next load. Whatever no route and no file
 * answers gets the catalogue's 404 `not_found` JSON.
 *
 * Invariants: never answers for the server's own prefixes (`/api`, `/mcp`,
 * `/auth`, `/healthz`, `/debug`, `/metrics`) nor for `/.well-known`, whatever
 * the registration order (it passes them on with `next()`); never serves a
 * file outside `root`. A client route is any path without a file extension,
 * so the app can add routes without the server knowing them.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { Env, Hono } from 'hono';
import { errorResponse } from './errors.js';

export const RESERVED_PREFIXES = [
  '/api',
  '/mcp',
  '/auth',
  '/healthz',
  '/debug',
  '/metrics',
  // Discovery documents (OAuth metadata and the like) that Clarion does not
  // publish: an OAuth-aware MCP client must read "none here", never the app's HTML.
  '/.well-known',
] as const;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface WebAppOptions {
  /** The directory `vite build` wrote, normally `dist/web`. */
  readonly root: string;
}

export function isReservedPath(pathname: string): boolean {
  return RESERVED_PREFIXES.some(
    (prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`),
  );
}

/** The file a URL path names inside `root`, or `undefined` if it would leave it. */
export function resolveInside(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const file = resolve(root, `.${decoded}`);
  return file === root || file.startsWith(root + sep) ? file : undefined;
}

async function readIfFile(file: string): Promise<Buffer | undefined> {
  try {
    const info = await stat(file);
    return info.isFile() ? await readFile(file) : undefined;
  } catch {
    return undefined;
  }
}

function respond(method: string, body: Buffer, headers: Record<string, string>): Response {
  return new Response(method === 'HEAD' ? null : new Uint8Array(body), {
    status: 200,
    headers: { ...headers, 'Content-Length': String(body.byteLength) },
  });
}

export function registerWebApp<E extends Env>(app: Hono<E>, options: WebAppOptions): void {
  const root = resolve(options.root);
  const indexFile = resolve(root, 'index.html');

  app.use('*', async (c, next) => {
    const method = c.req.method;
    const pathname = new URL(c.req.url).pathname;
    if ((method !== 'GET' && method !== 'HEAD') || isReservedPath(pathname)) {
      await next();
      return;
    }
    const file = pathname === '/' ? indexFile : resolveInside(root, pathname);
    if (file === undefined) {
      await next();
      return;
    }
    const body = file === indexFile ? undefined : await readIfFile(file);
    if (body !== undefined) {
      const isAsset = pathname.startsWith('/assets/');
      return respond(method, body, {
        'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Cache-Control': isAsset ? IMMUTABLE : 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      });
    }
    // A missing file with an extension (or under /assets) is a 404, not the app.
    if (pathname.startsWith('/assets/') || (file !== indexFile && extname(pathname) !== '')) {
      await next();
      return;
    }
    const index = await readIfFile(indexFile);
    if (index === undefined) {
      await next();
      return;
    }
    return respond(method, index, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'Referrer-Policy': 'same-origin',
    });
  });

  // Registered once for the whole app: an unknown API path, a missing file and a
  // discovery probe all read as the same JSON a known route gives for a missing record.
  app.notFound((c) => errorResponse(c, 'not_found'));
}
