/**
 * The server's VAPID identity (RFC 8292): one P-256 key pair, generated at
 * first start and kept in the store, so every subscription a browser made
 * with the public key stays valid across restarts. Both halves live in one
 * row: two servers starting at once on one database keep the first pair
 * written, never one's public key with the other's private key.
 *
 * The subject is the contact a push service may use: a `mailto:` or an
 * `https:` URL. Apple's service refuses a subject whose host cannot resolve
 * (`localhost`, `.local`, `.invalid`, an address), so a subject is only
 * derived from the public origin when that origin could be a real site.
 */
import webPush from 'web-push';
import { claimServerKey, getServerKey, type RepoContext } from '../store/index.js';

export const VAPID_KEY_NAME = 'vapid';

export interface VapidKeys {
  /** The uncompressed P-256 point, base64url: `PushManager.subscribe`'s `applicationServerKey`. */
  readonly publicKey: string;
  /** The private scalar, base64url; it never leaves the server. */
  readonly privateKey: string;
}

/** The stored pair, or a new one stored now; every caller on one database gets the same pair. */
export async function loadVapidKeys(store: RepoContext): Promise<VapidKeys> {
  const stored = await getServerKey(store, VAPID_KEY_NAME);
  if (stored !== undefined) return parseVapidKeys(stored);
  const fresh = webPush.generateVAPIDKeys();
  const kept = await claimServerKey(
    store,
    VAPID_KEY_NAME,
    JSON.stringify({ publicKey: fresh.publicKey, privateKey: fresh.privateKey }),
  );
  return parseVapidKeys(kept);
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function parseVapidKeys(text: string): VapidKeys {
  const value: unknown = JSON.parse(text);
  if (typeof value === 'object' && value !== null) {
    const { publicKey, privateKey } = value as Record<string, unknown>;
    if (
      typeof publicKey === 'string' &&
      typeof privateKey === 'string' &&
      BASE64URL.test(publicKey) &&
      BASE64URL.test(privateKey) &&
      Buffer.from(publicKey, 'base64url').length === 65 &&
      Buffer.from(privateKey, 'base64url').length === 32
    ) {
      return { publicKey, privateKey };
    }
  }
  throw new Error(`the stored "${VAPID_KEY_NAME}" server key is not a P-256 key pair`);
}

/** Host names no push service can resolve to a contact. */
const UNRESOLVABLE_SUFFIXES = [
  '.localhost',
  '.local',
  '.invalid',
  '.test',
  '.example',
  '.internal',
];

export interface VapidSubjectSources {
  /** An operator's `mailto:` or `https:` contact, when configured; it wins. */
  readonly contact?: string | undefined;
  /** `CLARION_PUBLIC_ORIGIN`. */
  readonly publicOrigin?: string | undefined;
}

/** The last resort: accepted by FCM and Mozilla; Apple needs one of the sources above. */
export const FALLBACK_VAPID_SUBJECT = 'mailto:clarion@localhost';

/**
 * The subject for the VAPID JWT: the contact if given, else the public origin
 * when it is `https:` on a name that could resolve, else a placeholder that
 * only Apple refuses (`usable: false` says so, for a start-up warning).
 */
export function vapidSubject(sources: VapidSubjectSources): {
  readonly subject: string;
  readonly usable: boolean;
} {
  if (sources.contact !== undefined && isContact(sources.contact)) {
    return { subject: sources.contact, usable: true };
  }
  if (sources.publicOrigin !== undefined && URL.canParse(sources.publicOrigin)) {
    const origin = new URL(sources.publicOrigin);
    if (origin.protocol === 'https:' && couldResolve(origin.hostname)) {
      return { subject: origin.origin, usable: true };
    }
  }
  return { subject: FALLBACK_VAPID_SUBJECT, usable: false };
}

function isContact(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'mailto:' || (url.protocol === 'https:' && couldResolve(url.hostname));
}

function couldResolve(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || !host.includes('.')) return false;
  if (/^[\d.]+$/.test(host) || host.startsWith('[')) return false;
  return !UNRESOLVABLE_SUFFIXES.some((suffix) => host.endsWith(suffix));
}
