/**
 * What the Open Responses specification (openresponses.org, its OpenAPI document of 2026-04-24) requires of
 * the objects a Responses API returns: the response object, its output items and content parts, the
 * stream events, and the compaction endpoint's answer. Written here as small shapes (required keys with
 * their JSON types; optional keys checked only when present) so tests can check real answers against
 * the specification, field by field, without a JSON Schema engine.
 *
 * One deliberate allowance: the reasoning text events are accepted under OpenAI's names
 * (`response.reasoning_text.delta` / `.done`, which Berth sends as the reference API does) as well as the
 * specification's (`response.reasoning.delta` / `.done`); both carry the same fields.
 */

/** A JSON shape: a type name, an enum, a literal, a list, an object, a union by `type`, or alternatives. */
export type Shape =
  | 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'any'
  | { readonly nullable: Shape }
  | { readonly list: Shape }
  | { readonly oneOf: readonly Shape[] }
  | { readonly enumOf: readonly string[] }
  | { readonly fields: Readonly<Record<string, Shape>>; readonly optional?: Readonly<Record<string, Shape>> }
  | { readonly byType: Readonly<Record<string, ObjectShape>> };

type ObjectShape = { readonly fields: Readonly<Record<string, Shape>>; readonly optional?: Readonly<Record<string, Shape>> };

const str = 'string' as const;
const int = 'integer' as const;
const num = 'number' as const;
const bool = 'boolean' as const;
const nullable = (shape: Shape): Shape => ({ nullable: shape });
const list = (shape: Shape): Shape => ({ list: shape });

/** Token usage (Usage). */
export const usageShape: Shape = {
  fields: {
    input_tokens: int, output_tokens: int, total_tokens: int,
    input_tokens_details: { fields: { cached_tokens: int } },
    output_tokens_details: { fields: { reasoning_tokens: int } },
  },
};

/** Content parts of messages, reasoning and function outputs, by `type`. */
const contentParts: Record<string, ObjectShape> = {
  input_text: { fields: { text: str } },
  output_text: { fields: { text: str, annotations: list('object'), logprobs: list('object') } },
  text: { fields: { text: str } },
  summary_text: { fields: { text: str } },
  reasoning_text: { fields: { text: str } },
  refusal: { fields: { refusal: str } },
  input_image: { fields: { image_url: nullable(str), detail: { enumOf: ['low', 'high', 'auto'] } } },
  input_file: { fields: {}, optional: { filename: str, file_url: str } },
};
export const contentPartShape: Shape = { byType: contentParts };

const itemStatus: Shape = { enumOf: ['in_progress', 'completed', 'incomplete'] };

/** Output items (ItemField), by `type`. */
export const itemShape: Shape = {
  byType: {
    message: { fields: { id: str, status: itemStatus, role: { enumOf: ['user', 'assistant', 'system', 'developer'] }, content: list(contentPartShape) }, optional: { phase: { enumOf: ['commentary', 'final_answer'] } } },
    function_call: { fields: { id: str, call_id: str, name: str, arguments: str, status: itemStatus } },
    function_call_output: { fields: { id: str, call_id: str, output: { oneOf: [str, list(contentPartShape)] }, status: itemStatus } },
    reasoning: { fields: { id: str, summary: list(contentPartShape) }, optional: { content: list(contentPartShape), encrypted_content: str } },
    compaction: { fields: { id: str, encrypted_content: str }, optional: { created_by: str } },
  },
};

const functionTool: ObjectShape = { fields: { name: str, description: nullable(str), parameters: nullable('object'), strict: nullable(bool) } };

/** The response object (ResponseResource): every key the specification lists as required. */
export const responseShape: Shape = {
  fields: {
    id: str,
    object: { enumOf: ['response'] },
    created_at: int,
    completed_at: nullable(int),
    status: str,
    incomplete_details: nullable({ fields: { reason: str } }),
    model: str,
    previous_response_id: nullable(str),
    instructions: nullable(str),
    output: list(itemShape),
    error: nullable({ fields: { code: str, message: str } }),
    tools: list({ byType: { function: functionTool } }),
    tool_choice: { oneOf: [{ enumOf: ['none', 'auto', 'required'] }, { byType: { function: { fields: {}, optional: { name: str } }, allowed_tools: { fields: { tools: list('object'), mode: str } } } }] },
    truncation: { enumOf: ['auto', 'disabled'] },
    parallel_tool_calls: bool,
    text: {
      fields: {
        format: {
          byType: {
            text: { fields: {} },
            json_object: { fields: {} },
            json_schema: { fields: { name: str, description: nullable(str), schema: 'any', strict: bool } },
          },
        },
      },
      optional: { verbosity: { enumOf: ['low', 'medium', 'high'] } },
    },
    top_p: num,
    presence_penalty: num,
    frequency_penalty: num,
    top_logprobs: int,
    temperature: num,
    reasoning: nullable({ fields: { effort: nullable(str), summary: nullable(str) } }),
    usage: nullable(usageShape),
    max_output_tokens: nullable(int),
    max_tool_calls: nullable(int),
    store: bool,
    background: bool,
    service_tier: str,
    metadata: 'any',
    safety_identifier: nullable(str),
    prompt_cache_key: nullable(str),
  },
};

/** The answer of `POST /responses/compact` (CompactResource). */
export const compactionShape: Shape = {
  fields: { id: str, object: { enumOf: ['response.compaction'] }, output: list(itemShape), created_at: int, usage: usageShape },
};

const event = (fields: Record<string, Shape>, optional?: Record<string, Shape>): ObjectShape =>
  ({ fields: { sequence_number: int, ...fields }, ...(optional ? { optional } : {}) });
const inItem = { item_id: str, output_index: int };
const inPart = { ...inItem, content_index: int };
const inSummary = { ...inItem, summary_index: int };

/** Every stream event of the specification, by `type`, with its required keys. */
export const streamEventShapes: Readonly<Record<string, ObjectShape>> = {
  'response.created': event({ response: responseShape }),
  'response.queued': event({ response: responseShape }),
  'response.in_progress': event({ response: responseShape }),
  'response.completed': event({ response: responseShape }),
  'response.failed': event({ response: responseShape }),
  'response.incomplete': event({ response: responseShape }),
  'response.output_item.added': event({ output_index: int, item: nullable(itemShape) }),
  'response.output_item.done': event({ output_index: int, item: nullable(itemShape) }),
  'response.content_part.added': event({ ...inPart, part: contentPartShape }),
  'response.content_part.done': event({ ...inPart, part: contentPartShape }),
  'response.reasoning_summary_part.added': event({ ...inSummary, part: contentPartShape }),
  'response.reasoning_summary_part.done': event({ ...inSummary, part: contentPartShape }),
  'response.output_text.delta': event({ ...inPart, delta: str, logprobs: list('object') }, { obfuscation: str }),
  'response.output_text.done': event({ ...inPart, text: str, logprobs: list('object') }),
  'response.refusal.delta': event({ ...inPart, delta: str }),
  'response.refusal.done': event({ ...inPart, refusal: str }),
  'response.reasoning.delta': event({ ...inPart, delta: str }, { obfuscation: str }),
  'response.reasoning.done': event({ ...inPart, text: str }),
  'response.reasoning_text.delta': event({ ...inPart, delta: str }, { obfuscation: str }),
  'response.reasoning_text.done': event({ ...inPart, text: str }),
  'response.reasoning_summary_text.delta': event({ ...inSummary, delta: str }, { obfuscation: str }),
  'response.reasoning_summary_text.done': event({ ...inSummary, text: str }),
  'response.output_text.annotation.added': event({ ...inPart, annotation_index: int, annotation: nullable('object') }),
  'response.function_call_arguments.delta': event({ ...inItem, delta: str }, { obfuscation: str }),
  'response.function_call_arguments.done': event({ ...inItem, arguments: str }),
  error: event({ error: { fields: { type: str, code: nullable(str), message: str, param: nullable(str) } } }),
};
export const streamEventShape: Shape = { byType: streamEventShapes };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where `value` departs from `shape`: one line per problem (`output[0].content[0].logprobs: missing`); empty when it conforms. */
export function shapeProblems(value: unknown, shape: Shape, path = '$'): string[] {
  if (shape === 'any') return [];
  if (typeof shape === 'string') {
    const ok = shape === 'string' ? typeof value === 'string'
      : shape === 'integer' ? Number.isInteger(value)
        : shape === 'number' ? typeof value === 'number' && Number.isFinite(value)
          : shape === 'boolean' ? typeof value === 'boolean'
            : isObject(value);
    return ok ? [] : [`${path}: expected ${shape}, got ${JSON.stringify(value) ?? 'undefined'}`];
  }
  if ('nullable' in shape) return value === null ? [] : shapeProblems(value, shape.nullable, path);
  if ('list' in shape) {
    if (!Array.isArray(value)) return [`${path}: expected a list, got ${JSON.stringify(value) ?? 'undefined'}`];
    return value.flatMap((entry, i) => shapeProblems(entry, shape.list, `${path}[${i}]`));
  }
  if ('oneOf' in shape) {
    const attempts = shape.oneOf.map((option) => shapeProblems(value, option, path));
    return attempts.some((problems) => problems.length === 0) ? [] : [`${path}: matches none of ${shape.oneOf.length} alternatives (${attempts.map((p) => p[0]).join('; ')})`];
  }
  if ('enumOf' in shape) {
    return typeof value === 'string' && shape.enumOf.includes(value) ? [] : [`${path}: expected one of ${shape.enumOf.join(', ')}, got ${JSON.stringify(value) ?? 'undefined'}`];
  }
  if (!isObject(value)) return [`${path}: expected an object, got ${JSON.stringify(value) ?? 'undefined'}`];
  if ('byType' in shape) {
    const type = value.type;
    const variant = typeof type === 'string' ? shape.byType[type] : undefined;
    if (!variant) return [`${path}.type: ${JSON.stringify(type) ?? 'undefined'} is not one of ${Object.keys(shape.byType).join(', ')}`];
    return objectProblems(value, variant, path);
  }
  return objectProblems(value, shape, path);
}

function objectProblems(value: Record<string, unknown>, shape: ObjectShape, path: string): string[] {
  const problems: string[] = [];
  for (const [key, field] of Object.entries(shape.fields)) {
    if (!(key in value)) problems.push(`${path}.${key}: missing`);
    else problems.push(...shapeProblems(value[key], field, `${path}.${key}`));
  }
  for (const [key, field] of Object.entries(shape.optional ?? {})) {
    if (key in value) problems.push(...shapeProblems(value[key], field, `${path}.${key}`));
  }
  return problems;
}

/**
 * Problems of a whole stream: each event against its shape, `sequence_number` counting up from 0 without
 * gaps, and a last event that is `response.completed`, `response.incomplete` or `response.failed`.
 */
export function streamProblems(events: readonly unknown[]): string[] {
  const problems = events.flatMap((e, i) => shapeProblems(e, streamEventShape, `events[${i}]`));
  events.forEach((e, i) => {
    if (isObject(e) && e.sequence_number !== i) problems.push(`events[${i}].sequence_number: expected ${i}, got ${JSON.stringify(e.sequence_number)}`);
  });
  const last = events.at(-1);
  const type = isObject(last) ? last.type : undefined;
  if (type !== 'response.completed' && type !== 'response.incomplete' && type !== 'response.failed') problems.push(`the stream ends with ${JSON.stringify(type) ?? 'nothing'}`);
  return problems;
}
