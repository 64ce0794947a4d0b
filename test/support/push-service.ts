/**
 * A local push service for tests: what FCM, Mozilla's autopush or Apple's
 * service does with a Web Push request, checked with node:crypto alone (not
 * the `web-push` library the sender uses).
 *
 * - `subscribe()` makes what a browser makes: a P-256 key pair and a 16-byte
 *   auth secret (RFC 8291 §2), bound to the application server key given.
 * - Each request's VAPID header (RFC 8292) is verified: an ES256 JWT signed
 *   by the key in `k=`, that key equal to the subscription's application
 *   server key, `aud` this service's origin, `exp` in the future and at most
 *   24 h away, `sub` a `mailto:` or `https:` contact. A failure answers 401
 *   or 403 as real services do, and is recorded.
 * - The aes128gcm body (RFC 8188) is decrypted: ECDH with the sender's
 *   ephemeral key from the header, HKDF for the key and nonce, AES-128-GCM,
 *   then the padding delimiter.
 * - Each response is chosen by `respond` (status, headers, or no answer).
 */
import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
} from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface PushSubscriptionKeys {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

export interface ReceivedPush {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The verified JWT claims, or why the VAPID header was refused. */
  readonly vapid: { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string };
  /** The decrypted body as text, or why it could not be decrypted. */
  readonly payload: { ok: true; text: string } | { ok: false; reason: string };
}

/** What the stub answers; `'hang'` never answers (the socket stays open). */
export type StubReply =
  { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface PushServiceStub {
  readonly origin: string;
  readonly received: ReceivedPush[];
  /**
   * Chooses the reply to the n-th request (0-based); a valid push gets 201
   * by default. A promise holds the reply until it settles.
   */
  respond: (request: ReceivedPush, index: number) => StubReply | Promise<StubReply>;
  /** A browser's subscription to this service for `applicationServerKey` (base64url). */
  subscribe(applicationServerKey: string): PushSubscriptionKeys;
  close(): Promise<void>;
}

interface Subscriber {
  readonly ecdh: ReturnType<typeof createECDH>;
  readonly auth: Buffer;
  readonly applicationServerKey: string;
}

const DAY_S = 24 * 60 * 60;

export async function startPushService(): Promise<PushServiceStub> {
  const subscribers = new Map<string, Subscriber>();
  const received: ReceivedPush[] = [];
  let origin = '';

  const stub: PushServiceStub = {
    get origin() {
      return origin;
    },
    received,
    respond: (request) =>
      request.vapid.ok && request.payload.ok ? { status: 201 } : { status: 400 },
    subscribe(applicationServerKey) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const id = randomBytes(8).toString('hex');
      subscribers.set(`/push/${id}`, { ecdh, auth, applicationServerKey });
      return {
        endpoint: `${origin}/push/${id}`,
        keys: {
          p256dh: ecdh.getPublicKey().toString('base64url'),
          auth: auth.toString('base64url'),
        },
      };
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => {
          done();
        });
        server.closeAllConnections();
      }),
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const subscriber = subscribers.get(path);
      const body = Buffer.concat(chunks);
      const push: ReceivedPush = {
        path,
        headers: request.headers,
        vapid: subscriber
          ? checkVapid(request.headers.authorization, subscriber.applicationServerKey, origin)
          : { ok: false, reason: 'no such subscription' },
        payload: subscriber ? decrypt(body, subscriber) : { ok: false, reason: 'no subscriber' },
      };
      received.push(push);
      void Promise.resolve(stub.respond(push, received.length - 1)).then((chosen) => {
        let reply = chosen;
        if (!subscriber) reply = { status: 404 };
        else if (!push.vapid.ok)
          reply = { status: 403, body: JSON.stringify({ reason: push.vapid.reason }) };
        if (reply === 'hang') return;
        response.writeHead(reply.status, reply.headers);
        response.end(reply.body ?? '');
      });
    });
  });
  await new Promise<void>((done) => {
    server.listen(0, '127.0.0.1', () => {
      done();
    });
  });
  origin = `http://127.0.0.1:${String((server.address() as { port: number }).port)}`;
  return stub;
}

function checkVapid(
  header: string | undefined,
  applicationServerKey: string,
  audience: string,
): ReceivedPush['vapid'] {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match)
    return { ok: false, reason: `not a vapid Authorization header: ${header ?? '(none)'}` };
  const [, token = '', key = ''] = match;
  if (key !== applicationServerKey) return { ok: false, reason: 'k is not the subscription’s key' };
  const [head = '', claims = '', signature = ''] = token.split('.');
  const header_ = JSON.parse(Buffer.from(head, 'base64url').toString()) as Record<string, unknown>;
  if (header_.alg !== 'ES256') return { ok: false, reason: `alg ${String(header_.alg)}` };
  const point = Buffer.from(key, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return { ok: false, reason: 'k is not a P-256 point' };
  const publicKey = createPublicKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${claims}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) return { ok: false, reason: 'bad signature' };
  const body = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>;
  const nowS = Date.now() / 1000;
  if (body.aud !== audience) return { ok: false, reason: `aud ${String(body.aud)}` };
  if (typeof body.exp !== 'number' || body.exp <= nowS || body.exp > nowS + DAY_S) {
    return { ok: false, reason: `exp ${String(body.exp)}` };
  }
  if (typeof body.sub !== 'string' || !/^(mailto:|https:\/\/)/.test(body.sub)) {
    return { ok: false, reason: `sub ${String(body.sub)}` };
  }
  return { ok: true, claims: body };
}

function decrypt(body: Buffer, subscriber: Subscriber): ReceivedPush['payload'] {
  // RFC 8188 §2.1: salt (16) | rs (4) | idlen (1) | keyid (idlen) | one record.
  if (body.length < 21) return { ok: false, reason: 'shorter than the header' };
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20] ?? 0;
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (record.length > recordSize) return { ok: false, reason: 'more than one record' };
  if (record.length < 17) return { ok: false, reason: 'record shorter than its tag' };
  // RFC 8291 §3.4: the shared secret, keyed by the auth secret and both public keys.
  const ecdhSecret = subscriber.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([
    Buffer.from('WebPush: info\0'),
    subscriber.ecdh.getPublicKey(),
    senderKey,
  ]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, subscriber.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, 'Content-Encoding: aes128gcm\0', 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, 'Content-Encoding: nonce\0', 12));
  try {
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([
      decipher.update(record.subarray(0, record.length - 16)),
      decipher.final(),
    ]);
    // The last record ends with 0x02, then any number of zero bytes of padding.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end -= 1;
    if (padded[end] !== 2) return { ok: false, reason: 'no last-record delimiter' };
    return { ok: true, text: padded.subarray(0, end).toString('utf8') };
  } catch (error) {
    return { ok: false, reason: `decryption failed: ${(error as Error).message}` };
  }
}
