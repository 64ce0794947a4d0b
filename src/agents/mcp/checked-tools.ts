/**
 * Clarion's tools on the SDK's `McpServer`, their arguments checked here
 * against the wire schemas rather than by the SDK. The SDK parses a call's
 * arguments before the tool runs and answers a mismatch itself, as text
 * (`MCP error -32602: Input validation error…`) without a code or issues,
 * while the same kind of mistake found by a service gets the catalogue's
 * shape. So the SDK is given a schema that takes any object but lists as the
 * wire schema (zod merges a schema's metadata into the JSON Schema the SDK
 * lists, limits included), and each call is checked here as REST checks a
 * body: text no database keeps first (`invalid_text`), then the shape
 * (`invalid_request`, an issue per field). Either way the tool never runs.
 *
 * Each tool also lists its output schema from the wire module, the same way.
 * It admits the tool error's `{error, code, issues}` besides the tool's
 * payloads: the SDK's client (1.x) checks a result's structured content
 * against it even when the result is an error, and would throw on every
 * refusal otherwise.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  failure,
  inputIssues,
  textIssues,
  toolErrorPayload,
  type Failure,
  type Issue,
} from '../../wire/index.js';
import type { ToolExtra } from './call-context.js';
import { toolFailure } from './results.js';

/** A tool's input: a strict object, so an unknown argument is refused, never dropped. */
export type ToolInputSchema = z.ZodObject<z.core.$ZodLooseShape, z.core.$strict>;

export interface CheckedToolConfig<I extends ToolInputSchema> {
  readonly title: string;
  readonly description: string;
  readonly inputSchema: I;
  /** The structured content of the tool's results (`wire/mcp.ts`). */
  readonly outputSchema: z.ZodType;
  readonly annotations?: ToolAnnotations;
}

export type CheckedToolHandler<I extends ToolInputSchema> = (
  args: z.output<I>,
  extra: ToolExtra,
) => Promise<CallToolResult>;

/** Registers tools whose handlers see only arguments their wire schema accepts. */
export interface CheckedTools {
  registerTool<I extends ToolInputSchema>(
    name: string,
    config: CheckedToolConfig<I>,
    handler: CheckedToolHandler<I>,
  ): void;
}

export function checkedTools(server: McpServer): CheckedTools {
  return {
    registerTool(name, config, handler) {
      server.registerTool(
        name,
        {
          title: config.title,
          description: config.description,
          inputSchema: listedAs(config.inputSchema, 'input'),
          outputSchema: listedAs(config.outputSchema, 'output'),
          ...(config.annotations ? { annotations: config.annotations } : {}),
        },
        (args, extra) => {
          const checked = checkArguments(name, config.inputSchema, args);
          return checked.ok ? handler(checked.value, extra) : Promise.resolve(toolFailure(checked));
        },
      );
    },
  };
}

/** A tool's arguments, or why they are refused: REST's order and codes for the same input. */
function checkArguments<I extends ToolInputSchema>(
  tool: string,
  schema: I,
  args: unknown,
): { ok: true; value: z.output<I> } | Failure<'invalid_text' | 'invalid_request'> {
  const badText = textIssues(args);
  if (badText.length > 0) return failure('invalid_text', undefined, badText);
  const parsed = schema.safeParse(args);
  if (!parsed.success) return invalidArguments(tool, inputIssues(parsed.error.issues));
  return { ok: true, value: parsed.data };
}

/** Arguments refused, by their schema or by the service's own rules: one message for both. */
export function invalidArguments(
  tool: string,
  issues: readonly Issue[],
): Failure<'invalid_request'> {
  return failure('invalid_request', `invalid arguments for ${tool}`, issues);
}

// Every MCP session registers the same tools; their listings are made once.
const listings = { input: new WeakMap(), output: new WeakMap() } satisfies Record<
  'input' | 'output',
  WeakMap<z.ZodType, z.ZodObject>
>;

/**
 * What the SDK parses with: any object passes, and it lists as `schema`
 * does, an output with the tool error as the alternative. The SDK lists
 * only object schemas, so an output's root says `type: object` (every
 * payload is one).
 */
function listedAs(schema: z.ZodType, io: 'input' | 'output'): z.ZodObject {
  let listing = listings[io].get(schema);
  if (!listing) {
    const listed: Record<string, unknown> = z.toJSONSchema(
      io === 'input' ? schema : z.union([schema, toolErrorPayload]),
      // The SDK's own conversion (draft 7), which adds `$schema` itself.
      { target: 'draft-7', io },
    );
    delete listed.$schema;
    listing = z.looseObject({}).meta(io === 'input' ? listed : { type: 'object', ...listed });
    listings[io].set(schema, listing);
  }
  return listing;
}
