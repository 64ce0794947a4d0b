/**
 * Reading an agent's `elicitation/create` and writing the reply, pure (DESIGN §6).
 *
 * Three kinds reach a person differently:
 * - `questions`: a form in the question convention the Claude and Codex
 *   adapters send (`AskUserQuestion`, `request_user_input`): one
 *   `question_<n>` field per question, a single-select as a string `oneOf`
 *   (or `enum`), a multi-select as an array whose items are `anyOf` (or
 *   `enum`), each with its `question_<n>_custom` free-text companion. It
 *   becomes an `ask_user_question` call, so every clarification rule holds.
 * - `form`: any other flat form (string, number, integer, boolean and enum
 *   fields).
 * - `url`: open a page out of band (MCP OAuth, a sign-in).
 * Anything else is `unsupported`: the agent hears an error naming why (`turns/refused-requests.ts`).
 *
 * The accept content is what the adapters read back: an option's enum
 * `const` (its label, for Claude), an array for a multi-select, custom text
 * in `question_<n>_custom`. A question left blank is left out.
 */
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationSchema,
} from '@agentclientprotocol/sdk';
import {
  clippedText,
  MAX_OPTIONS,
  MAX_QUESTION_TITLE_CHARS,
  MAX_QUESTIONS,
  MIN_OPTIONS,
  storableText,
  type AskInput,
} from '../../wire/index.js';

/** One question field and how its answer is written back. */
export interface QuestionField {
  /** `question_<n>`: also the question's ID in the bundle, so answers map back by name. */
  readonly key: string;
  readonly customKey: string;
  readonly multiSelect: boolean;
  /** Option IDs in the bundle, each with the enum value the agent reads back. */
  readonly options: readonly { readonly id: string; readonly value: string }[];
}

export type ElicitationKind =
  | { kind: 'questions'; ask: AskInput; fields: readonly QuestionField[] }
  | { kind: 'form'; message: string; schema: FlatFormSchema }
  | { kind: 'url'; message: string; url: string; elicitationId: string }
  | { kind: 'unsupported'; reason: string };

/** A form whose fields are all scalars or enums, as a person can fill it in. */
export interface FlatFormSchema {
  readonly title?: string;
  readonly description?: string;
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly required: readonly string[];
}

/** An answer to a question bundle, as the clarification response holds it. */
export interface BundleAnswer {
  readonly question_id: string;
  readonly selected_options: readonly string[];
  readonly custom_text: string;
}

const QUESTION_KEY = /^question_(\d+)$/;
const FLAT_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean']);

export function classifyElicitation(request: CreateElicitationRequest): ElicitationKind {
  if (request.mode === 'url') {
    const { url, elicitationId } = request as { url?: unknown; elicitationId?: unknown };
    if (typeof url !== 'string' || typeof elicitationId !== 'string') {
      return { kind: 'unsupported', reason: 'a url elicitation without url or elicitationId' };
    }
    return { kind: 'url', message: request.message, url, elicitationId };
  }
  if (request.mode !== 'form') {
    return { kind: 'unsupported', reason: `unknown elicitation mode ${request.mode}` };
  }
  const schema = (request as { requestedSchema?: ElicitationSchema }).requestedSchema;
  const properties = schema?.properties ?? {};
  const questions = questionFields(request.message, properties);
  if (questions) return questions;
  return flatForm(request.message, schema, properties);
}

/**
 * The `enumNames` of each field of a raw `elicitation/create` form, by field:
 * the older way to name an enum's choices, which the SDK's parse drops (its
 * schema has no such key). Read from the message as the agent sent it, so
 * the person sees "Free plan" rather than `p_free_1`; kept as given, for the
 * form schema to refuse a blank or missing name as it refuses any other.
 */
export function rawEnumNames(params: unknown): Record<string, unknown> | undefined {
  const properties = record(record(record(params)?.requestedSchema)?.properties);
  if (!properties) return undefined;
  const names: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(properties)) {
    const given = record(field)?.enumNames;
    if (given !== undefined) names[key] = given;
  }
  return Object.keys(names).length > 0 ? names : undefined;
}

/** `request` with each field's `enumNames` back as the agent sent it (`rawEnumNames`). */
export function withEnumNames(
  request: CreateElicitationRequest,
  names: Record<string, unknown> | undefined,
): CreateElicitationRequest {
  const schema = (request as { requestedSchema?: ElicitationSchema }).requestedSchema;
  if (!names || !schema) return request;
  const properties: Record<string, unknown> = { ...schema.properties };
  for (const [key, enumNames] of Object.entries(names)) {
    const field = record(properties[key]);
    if (field) properties[key] = { ...field, enumNames };
  }
  return { ...request, requestedSchema: { ...schema, properties } };
}

/**
 * The question convention, or undefined when the form is not (wholly) in it.
 * What a person is shown is the agent's text made storable (the bundle is
 * stored, and PostgreSQL refuses a NUL, so the ask would be refused and the
 * agent hear a skip no person made); the values it reads back stay as sent.
 */
function questionFields(
  sent: string,
  properties: Record<string, unknown>,
): ElicitationKind | undefined {
  const message = storableText(sent);
  const keys = Object.keys(properties);
  const numbers = keys.flatMap((key) => QUESTION_KEY.exec(key)?.[1] ?? []).map(Number);
  if (numbers.length === 0 || numbers.length > MAX_QUESTIONS) return undefined;
  // Every field is a question or the custom box of one; each question has its box.
  const expected = new Set(numbers.flatMap((n) => [`question_${n}`, `question_${n}_custom`]));
  if (keys.length !== expected.size || !keys.every((key) => expected.has(key))) return undefined;
  numbers.sort((a, b) => a - b);
  const single = numbers.length === 1;
  const fields: QuestionField[] = [];
  const asked: AskInput['questions'] = [];
  for (const n of numbers) {
    const key = `question_${n}`;
    const field = record(properties[key]);
    const custom = record(properties[`${key}_custom`]);
    if (!field || custom?.type !== 'string') return undefined;
    const choice = choicesOf(field);
    if (!choice || choice.options.length < MIN_OPTIONS || choice.options.length > MAX_OPTIONS) {
      return undefined;
    }
    const options = choice.options.map((option, index) => ({
      id: `${key}_opt_${index + 1}`,
      value: option.value,
    }));
    fields.push({ key, customKey: `${key}_custom`, multiSelect: choice.multiSelect, options });
    const description = text(field.description);
    const title = text(field.title);
    asked.push({
      id: key,
      // Claude's header is short; another agent's title may not be. Cut between whole
      // characters: half an emoji is text the ask refuses, and the form would be declined unseen.
      ...(title ? { title: clippedText(title, MAX_QUESTION_TITLE_CHARS) } : {}),
      // A single question's prompt is the message (Claude leaves its description out).
      prompt: description ?? (single ? message : (title ?? message)),
      options: choice.options.map((option, index) => ({
        id: options[index]?.id,
        label: option.label,
        // Clarion shows every option with a description; the label stands in for a missing one.
        description: option.description ?? option.label,
      })),
      multi_select: choice.multiSelect,
    });
  }
  const promptIsMessage = asked.some((question) => question.prompt === message);
  const context = promptIsMessage ? undefined : message.trim() || undefined;
  const ask: AskInput = { questions: asked, ...(context ? { context } : {}) };
  return { kind: 'questions', ask, fields };
}

interface Choice {
  multiSelect: boolean;
  options: { value: string; label: string; description: string | undefined }[];
}

function choicesOf(field: Record<string, unknown>): Choice | undefined {
  if (field.type === 'string') {
    const options = enumOptions(field.oneOf, field.enum);
    return options ? { multiSelect: false, options } : undefined;
  }
  if (field.type === 'array') {
    const items = record(field.items);
    const options = items ? enumOptions(items.anyOf, items.enum) : undefined;
    return options ? { multiSelect: true, options } : undefined;
  }
  return undefined;
}

/** Titled options (`oneOf`/`anyOf` of `{const, title, description}`) or plain `enum` values. */
function enumOptions(titled: unknown, plain: unknown): Choice['options'] | undefined {
  if (Array.isArray(titled)) {
    const options: Choice['options'] = [];
    for (const entry of titled) {
      const option = record(entry);
      if (typeof option?.const !== 'string') return undefined;
      options.push({
        value: option.const,
        label: text(option.title) ?? storableText(option.const),
        description: text(option.description),
      });
    }
    return options;
  }
  if (Array.isArray(plain) && plain.every((value) => typeof value === 'string')) {
    return plain.map((value) => ({ value, label: storableText(value), description: undefined }));
  }
  return undefined;
}

function flatForm(
  message: string,
  schema: ElicitationSchema | undefined,
  properties: Record<string, unknown>,
): ElicitationKind {
  const fields: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(properties)) {
    const field = record(value);
    if (!field || !isFlatField(field)) {
      return { kind: 'unsupported', reason: `field ${key} is not a flat form field` };
    }
    fields[key] = field;
  }
  if (Object.keys(fields).length === 0) {
    return { kind: 'unsupported', reason: 'a form without fields' };
  }
  const title = text(schema?.title);
  const description = text(schema?.description);
  return {
    kind: 'form',
    message,
    schema: {
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      properties: fields,
      required: (schema?.required ?? []).filter((key) => key in fields),
    },
  };
}

function isFlatField(field: Record<string, unknown>): boolean {
  if (typeof field.type === 'string' && FLAT_TYPES.has(field.type)) return true;
  if (field.type !== 'array') return false;
  const items = record(field.items);
  return items !== undefined && enumOptions(items.anyOf, items.enum) !== undefined;
}

/**
 * The reply to a question form: an answer as the adapter reads it back, a
 * rejection as `decline` (Claude tells the model the person skipped).
 */
export function questionsReply(
  fields: readonly QuestionField[],
  response: { rejected: boolean; answers: readonly BundleAnswer[] },
): CreateElicitationResponse {
  if (response.rejected) return DECLINE;
  const content: Record<string, string | string[]> = {};
  for (const field of fields) {
    const answer = response.answers.find((candidate) => candidate.question_id === field.key);
    if (!answer) continue;
    const values = answer.selected_options.flatMap(
      (id) => field.options.find((option) => option.id === id)?.value ?? [],
    );
    if (field.multiSelect) {
      if (values.length > 0) content[field.key] = values;
    } else if (values[0] !== undefined) {
      content[field.key] = values[0];
    }
    const custom = answer.custom_text.trim();
    if (custom !== '') content[field.customKey] = custom;
  }
  return { action: 'accept', content };
}

export const DECLINE: CreateElicitationResponse = { action: 'decline' };
export const CANCEL: CreateElicitationResponse = { action: 'cancel' };

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The agent's text as a person is shown it (storable), or undefined when it says nothing. */
function text(value: unknown): string | undefined {
  const shown = typeof value === 'string' ? storableText(value).trim() : '';
  return shown !== '' ? shown : undefined;
}
