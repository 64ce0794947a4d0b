/**
 * "Always allow" rules (`/api/v1/consent-rules`): a person's standing answer
 * to consent requests for one agent profile's tool call as they saw it (the
 * tool and the whole command) in the workspace and working folder where they
 * chose it, listed with who set it, where and when, and revoked by ID. A
 * revoke is a person's decision too: the rules it ended are listed beside the
 * others with who revoked them, where and when.
 */
import { z } from 'zod';
import { responder, timestamp } from './common.js';
import { DECISION_SURFACES } from './constants.js';

export const consentRuleView = z
  .object({
    id: z.string(),
    agent_profile: z.string(),
    /** What the agent named the tool (its kind, else its title). */
    tool_key: z.string(),
    /**
     * The whole command the rule allows, and only it: the tool call's title, and on a line of
     * its own the command it runs when the title does not name it. Null for a rule kept before
     * rules named their command: it answers no request, and can be revoked.
     */
    command: z.string().nullable(),
    /**
     * Where the rule holds: the workspace of the task it was made in and the folder that task's
     * agent worked in (its profile's, else the task's, else Clarion's). Null for a rule kept
     * before rules were scoped: it answers no request, and can be revoked.
     */
    scope: z
      .object({
        workspace_id: z.string(),
        /** The workspace's name now; null once it is gone. */
        workspace_name: z.string().nullable(),
        cwd: z.string(),
      })
      .nullable(),
    set_by: z.object({ user_id: z.string(), name: z.string() }),
    /** Where "Always allow" was chosen. */
    surface: z.enum(DECISION_SURFACES),
    created_at: timestamp,
  })
  .meta({ id: 'ConsentRule' });
export type ConsentRuleView = z.infer<typeof consentRuleView>;

/** A rule a person revoked: as it was listed, with who revoked it, where and when. */
export const consentRuleRevocationView = consentRuleView
  .extend({ revoked_by: responder, revoked_at: timestamp })
  .meta({ id: 'ConsentRuleRevocation' });
export type ConsentRuleRevocationView = z.infer<typeof consentRuleRevocationView>;

export const consentRuleListReply = z
  .object({
    rules: z.array(consentRuleView),
    /** The newest revoked rules (at most `CONSENT_RULE_REVOCATIONS_LISTED_ROWS`), newest first. */
    revoked: z.array(consentRuleRevocationView),
  })
  .meta({ id: 'ConsentRuleList' });
export type ConsentRuleListReply = z.infer<typeof consentRuleListReply>;
