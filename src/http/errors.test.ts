import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { handleUnexpectedErrors } from './errors.js';

/** Log lines as pino writes them, kept in memory. */
function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        lines.push(JSON.parse(line) as { level: number; msg: string });
      },
    },
  );
  return { logger, lines };
}

describe('handleUnexpectedErrors', () => {
  const servers: { close(): void }[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  it('logs no error for a body its caller stopped sending (a client gone, a stop’s drain cut)', async () => {
    const { logger, lines } = capturedLogger();
    const app = new Hono();
    let failed: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      failed = resolve;
    });
    app.post('/upload', async (c) => {
      try {
        return c.json({ bytes: (await c.req.arrayBuffer()).byteLength });
      } finally {
        failed();
      }
    });
    handleUnexpectedErrors(app, logger);
    const server = createAdaptorServer({ fetch: app.fetch });
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;

    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'POST /upload HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 1000\r\n\r\n{"title":',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await settled;
    // The error handler runs after the route's rejection; let it.
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.map((line) => line.msg)).toContain(
      'the caller went away before its request was answered',
    );
  });
});
