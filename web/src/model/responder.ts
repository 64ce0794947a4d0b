/** Who made a decision, read defensively from a body or a transcript row's metadata. */
import { DECISION_SURFACES, type Responder } from './types.js';

const SURFACES = new Set<string>(DECISION_SURFACES);

/** The responder when `value` has its shape; `null` otherwise (older rows keep none). */
export function parseResponder(value: unknown): Responder | null {
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Record<string, unknown>;
  if (typeof r.user_id !== 'string' || typeof r.name !== 'string') return null;
  if (typeof r.surface !== 'string' || !SURFACES.has(r.surface)) return null;
  return { user_id: r.user_id, name: r.name, surface: r.surface as Responder['surface'] };
}

/**
 * Whether `responder` is the signed-in person `me`. Unknown (`me` not yet
 * read, or no responder) counts as someone else: a card never says "you"
 * for a decision the person did not make.
 */
export function isMe(responder: Responder | null, me: string | undefined): boolean {
  return responder !== null && me !== undefined && responder.user_id === me;
}
