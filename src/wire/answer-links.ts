/**
 * Answer links: one signed, single-use link per choice of an item, carried by
 * a notification so a person can decide from their phone's lock screen.
 * Opening the link shows what it would do and changes nothing; the confirm
 * page's POST decides, as the person the link was made for (surface `link`).
 * The secret travels in the body, never in a URL the server logs.
 */
import { z } from 'zod';
import { responder, timestamp } from './common.js';
import { MAX_ANSWER_LINK_TOKEN_CHARS } from './limits.js';
import { NOTICE_KINDS } from './notifications.js';
import { consentOptionKind } from './user-input.js';

export const answerLinkBody = z
  .strictObject({ token: z.string().min(1).max(MAX_ANSWER_LINK_TOKEN_CHARS) })
  .meta({ id: 'AnswerLinkBody' });

/** `open`: the choice can still be made; otherwise why not. */
export const ANSWER_LINK_STATES = ['open', 'answered', 'expired'] as const;

export const answerLinkView = z
  .object({
    kind: z.enum(NOTICE_KINDS),
    state: z.enum(ANSWER_LINK_STATES),
    task_title: z.string(),
    /** The question or request as the agent put it. */
    title: z.string(),
    /** The agent profile that asked: with `title`, what a consent's "Always allow" covers. */
    agent_profile: z.string(),
    /** What this link chooses, e.g. an option's label, "Allow once" or "Done". */
    choice: z.string(),
    /**
     * A consent option's kind: what the choice does, whatever `choice` (the
     * agent's label) says; the page leads with Clarion's words for it. Null
     * for a question's option or an action's Done or Skip.
     */
    choice_kind: consentOptionKind.nullable(),
    expires_at: timestamp.nullable(),
    /** Once decided (through this link or anywhere else): what was chosen, and by whom. */
    decided: z
      .object({
        choice: z.string(),
        /** As `choice_kind`, for the choice that was made. */
        choice_kind: consentOptionKind.nullable(),
        responded_by: responder.nullable(),
      })
      .nullable(),
    /**
     * The person a Confirm decides as, as they are named now. The secret is
     * the credential, so whoever holds the URL (a forwarded notice, a shared
     * ntfy topic) answers as them: the page says whose link it is. Only while
     * the link can decide (`open`); once decided, who did is `decided`'s.
     */
    answering_as: z.object({ user_id: z.string(), name: z.string() }).nullable(),
    /** Opens the item in the web app, for a person who wants to see more first. */
    url: z.string(),
  })
  .meta({ id: 'AnswerLink' });
export type AnswerLinkView = z.infer<typeof answerLinkView>;

export const answerLinkReply = z.object({ link: answerLinkView });
export type AnswerLinkReply = z.infer<typeof answerLinkReply>;
