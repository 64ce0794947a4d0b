/** The bundles every hostile case aims at: who asks, which bundle, its question shape, and who may see it. */
import { MAX_BODY_BYTES } from '../../../src/wire/index.js';

export const SEED = 0x5eed_c1a7;
export const CASES_PER_DIALECT = 2_400;
export const CONCURRENCY = 8;
export const BODY_LIMIT = MAX_BODY_BYTES;
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
export const NOT_FOUND = { error: 'clarification request not found', code: 'not_found' };
export const NOT_ACTIVE = {
  error: 'clarification request is no longer active',
  code: 'not_active',
};
/** The codes a status may carry: a 400 is a body's shape or its text. */
export const CODES_OF_STATUS: Record<number, readonly string[]> = {
  400: ['invalid_request', 'invalid_text'],
  403: ['person_required'],
  404: ['not_found'],
  409: ['not_active'],
  413: ['payload_too_large'],
};

// ---------------------------------------------------------------------------
// The bundles every case aims at.

export type Who = 'member' | 'outsider' | 'agent';
export type RealKey = 'active' | 'superseded' | 'expired' | 'ended' | 'foreign';
export type Shape = 'parser' | 'paint';

/** A second question set, so option IDs of other bundles are at hand. */
export const PAINT = {
  context: 'Painting the shed',
  questions: [
    {
      id: 'colour',
      prompt: 'Which colour?',
      options: [
        { id: 'red', label: 'Red', description: 'warm' },
        { id: 'blue', label: 'Blue', description: 'cold' },
        { id: 'green', label: 'Green', description: 'calm' },
      ],
    },
    {
      id: 'size',
      prompt: 'Which tin sizes?',
      multi_select: true,
      options: [
        { id: 's', label: 'Small', description: '1 l' },
        { id: 'm', label: 'Medium', description: '2.5 l' },
        { id: 'l', label: 'Large', description: '5 l' },
      ],
    },
  ],
};

export interface ShapeQuestion {
  id: string;
  options: readonly string[];
  multi: boolean;
}

export const SHAPES: Record<Shape, readonly ShapeQuestion[]> = {
  parser: [
    { id: 'q1', options: ['q1_opt1', 'q1_opt2'], multi: false },
    { id: 'q2', options: ['q2_opt1', 'q2_opt2', 'q2_opt3'], multi: true },
  ],
  paint: [
    { id: 'colour', options: ['red', 'blue', 'green'], multi: false },
    { id: 'size', options: ['s', 'm', 'l'], multi: true },
  ],
};

export const SHAPE_OF: Record<RealKey, Shape> = {
  active: 'parser',
  superseded: 'parser',
  expired: 'paint',
  ended: 'parser',
  foreign: 'parser',
};

/** Who may see each bundle: the agent only its own session, nobody the other workspace's. */
export const VISIBLE_TO: Record<RealKey, readonly Who[]> = {
  active: ['member', 'agent'],
  superseded: ['member', 'agent'],
  expired: ['member'],
  ended: ['member'],
  foreign: [],
};

export const REAL_KEYS: readonly RealKey[] = [
  'active',
  'superseded',
  'expired',
  'ended',
  'foreign',
];
