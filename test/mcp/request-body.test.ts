/**
 * How `/mcp` reads a POST body before the SDK's transport sees it: read once
 * and handed over parsed, whether it came with a declared length or chunked;
 * bounded either way (a declared length over the bound is refused unread, a
 * chunked body is cut once it passes it, even one that never ends); and what
 * it cannot judge (a body that is not JSON, another media type) gets the
 * transport's own reply. Broken UTF-8 is `hostile-text.test.ts`'s.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { MAX_MCP_BODY_BYTES } from '../../src/wire/index.js';
import { initializeBody, mcpHarness, type McpHarness } from './mcp-harness.js';

const TOO_LARGE = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32000,
    message: `Payload Too Large: Request body must not exceed ${MAX_MCP_BODY_BYTES} bytes`,
  },
};

describe('the body of an MCP request', () => {
  let m: McpHarness;

  beforeAll(async () => {
    m = await mcpHarness('sqlite');
  });

  afterAll(async () => {
    await m.dispose();
  });

  function headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${m.tokens.member}`,
      ...extra,
    };
  }

  /** A body sent chunked (no `Content-Length`): `chunks` in turn, then the end unless `endless`. */
  function chunked(chunks: readonly string[], endless = false): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    let next = 0;
    return new ReadableStream({
      pull(controller) {
        const chunk = chunks[next++];
        if (chunk !== undefined) controller.enqueue(encoder.encode(chunk));
        else if (!endless) controller.close();
        // An endless body sends nothing more and never ends.
      },
    });
  }

  async function post(
    body: string | ReadableStream<Uint8Array>,
    extra: Record<string, string> = {},
  ) {
    // `duplex` lets a stream be the body: sent chunked, no `Content-Length`.
    const init: RequestInit & { duplex: 'half' } = {
      method: 'POST',
      headers: headers(extra),
      body,
      duplex: 'half',
    };
    const response = await fetch(m.url, init);
    return {
      status: response.status,
      sessionId: response.headers.get('mcp-session-id'),
      text: await response.text(),
    };
  }

  /** A request on `sessionId` that only works on an initialized session. */
  async function toolNames(sessionId: string): Promise<string[]> {
    const reply = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(reply.status).toBe(200);
    const data = reply.text
      .split('\n')
      .find((line) => line.startsWith('data: '))
      ?.slice('data: '.length);
    const message = JSON.parse(data ?? reply.text) as { result: { tools: { name: string }[] } };
    return message.result.tools.map((tool) => tool.name);
  }

  it('opens a session from an initialize sent with its length, and from one sent chunked', async () => {
    const body = initializeBody('body-reader');
    const whole = await post(body);
    const split = await post(chunked([body.slice(0, 40), body.slice(40, 90), body.slice(90)]));
    for (const reply of [whole, split]) {
      expect(reply.status).toBe(200);
      expect(reply.sessionId).toEqual(expect.any(String));
      expect(await toolNames(reply.sessionId ?? '')).toContain('ask_user_question');
    }
    expect(whole.sessionId).not.toBe(split.sessionId);
  });

  it('refuses a declared length over the bound at once, without waiting for the body', async () => {
    // Only the headers and a few bytes are ever sent; the reply cannot wait for the rest.
    const reply = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = httpRequest(m.url, {
        method: 'POST',
        headers: headers({ 'content-length': String(MAX_MCP_BODY_BYTES + 1) }),
      });
      outgoing.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, text });
          outgoing.destroy();
        });
      });
      outgoing.on('error', reject);
      outgoing.write('{"jsonrpc":"2.0"');
    });
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.text)).toEqual(TOO_LARGE);
  });

  it('is refused at the limit the document states: one byte over, not at it', async () => {
    const document = buildOpenApiDocument() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    const description = document.paths['/mcp']?.post?.responses['413']?.description ?? '';
    const limit = Number(/\((\d+) bytes\)/.exec(description)?.[1]);
    expect(limit).toBe(MAX_MCP_BODY_BYTES);
    // ASCII only, so characters are bytes; trailing space is JSON's own.
    const padded = (bytes: number) => {
      const body = initializeBody('at-the-limit');
      return `${body}${' '.repeat(bytes - body.length)}`;
    };
    expect((await post(padded(limit))).status).toBe(200);
    const over = await post(padded(limit + 1));
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text)).toEqual(TOO_LARGE);
  });

  it('cuts a chunked body once it passes the bound, even one that never ends', async () => {
    const chunk = ' '.repeat(64 * 1024);
    const chunks = Array.from({ length: MAX_MCP_BODY_BYTES / chunk.length + 1 }, () => chunk);
    const reply = await post(chunked(['{"jsonrpc":"2.0",', ...chunks], true));
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.text)).toEqual(TOO_LARGE);
  });

  it('leaves what it cannot judge to the transport, which refuses it and opens nothing', async () => {
    const sessions = m.endpoint.sessionCount();
    const notJson = await post('{"jsonrpc":"2.0","id":1,"method":');
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: Invalid JSON' },
    });
    const notJsonType = await post(initializeBody('plain'), { 'content-type': 'text/plain' });
    expect(notJsonType.status).toBe(415);
    expect(notJsonType.sessionId).toBeNull();
    expect(m.endpoint.sessionCount()).toBe(sessions);
  });
});
