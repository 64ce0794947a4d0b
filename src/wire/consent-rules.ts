/**
 * "Always allow" rules (`/api/v1/consent-rules`): a person's standing answer
 * to consent requests for one agent profile's tool, listed with who set it,
 * where and when, and revoked by ID.
 */
import { z } from 'zod';
import { timestamp } from './common.js';
import { DECISION_SURFACES } from './constants.js';

export const consentRuleView = z
  .object({
    id: z.string(),
    agent_profile: z.string(),
    /** What the agent named the tool (its kind, else its title). */
    tool_key: z.string(),
    set_by: z.object({ user_id: z.string(), name: z.string() }),
    /** Where "Always allow" was chosen. */
    surface: z.enum(DECISION_SURFACES),
    created_at: timestamp,
  })
  .meta({ id: 'ConsentRule' });
export type ConsentRuleView = z.infer<typeof consentRuleView>;

export const consentRuleListReply = z
  .object({ rules: z.array(consentRuleView) })
  .meta({ id: 'ConsentRuleList' });
export type ConsentRuleListReply = z.infer<typeof consentRuleListReply>;
