/**
 * The wire shape of a response, shared by REST and MCP so both surfaces accept
 * exactly the same bodies. Shape only: whether the answers fit the bundle is
 * `decide`'s job.
 */
import { z } from 'zod';

export const respondInputShape = {
  answers: z
    .array(
      z.strictObject({
        question_id: z.string().min(1).max(64),
        selected_options: z.array(z.string().min(1).max(64)).max(6).optional(),
        custom_text: z.string().max(8000).optional(),
      }),
    )
    .max(4)
    .optional()
    .describe('One answer per question: option IDs and/or custom text'),
  rejected: z.boolean().optional().describe('Skip the questions instead of answering'),
  reject_reason: z.string().max(8000).optional(),
};

export const respondInput = z.strictObject(respondInputShape);
