import { z } from 'zod';
import { ErrorTypeSchema, ExitReasonSchema } from './trace.js';

/**
 * The check specs that judge the trajectory (which tools, in what order, with which arguments),
 * the answer (pattern, equality, number, JSON) and the budget. Each is one member of the task
 * schema's CheckSpec union; loadSuite's judgedSpecIssues checks what a schema cannot (regular
 * expressions compile, JSON Schemas compile, a range is not empty).
 */

const ToolName = z.string().min(1);
const Count = z.number().int().nonnegative();
const JsonObject = z.record(z.string(), z.unknown());

export const TOOL_SEQUENCE_MODES = ['in_order', 'subsequence', 'exact', 'any_order'] as const;

const FieldRule = z
  .strictObject({
    pattern: z.string().min(1).optional(),
    type: z.enum(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']).optional(),
  })
  .refine((r) => r.pattern !== undefined || r.type !== undefined, { message: 'give pattern, type or both' });

export const JUDGED_CHECK_SCHEMAS = [
  z.strictObject({
    type: z.literal('tool_sequence'),
    tools: z.array(ToolName).min(1),
    mode: z.enum(TOOL_SEQUENCE_MODES).optional(),
  }),
  z
    .strictObject({
      type: z.literal('tool_args'),
      tool: ToolName,
      /** A JSON subset the arguments must contain (objects by key, arrays and scalars equal). */
      match: JsonObject.optional(),
      /** Per argument (a dotted path): a regular expression its text must match, or its JSON type. */
      fields: z.record(z.string().min(1), FieldRule).optional(),
      /** A JSON Schema the whole arguments object must satisfy. */
      schema: JsonObject.optional(),
      call: z.enum(['first', 'any', 'every']).optional(),
    })
    .refine((c) => c.match !== undefined || c.fields !== undefined || c.schema !== undefined, { message: 'give match, fields or schema (what the arguments must be)', path: ['match'] }),
  z.strictObject({ type: z.literal('tool_not_called'), tools: z.array(ToolName).min(1) }),
  z
    .strictObject({ type: z.literal('tool_count'), tool: ToolName.optional(), min: Count.optional(), max: Count.optional() })
    .refine((c) => c.min !== undefined || c.max !== undefined, { message: 'give min, max or both', path: ['min'] })
    .refine((c) => c.min === undefined || c.max === undefined || c.min <= c.max, { message: 'min is more than max', path: ['min'] }),
  z.strictObject({ type: z.literal('no_tool_errors'), except: z.array(ErrorTypeSchema).optional() }),
  z.strictObject({
    type: z.literal('answer_matches'),
    pattern: z.string().min(1),
    /** i: ignore case, m: ^ and $ at line ends, s: . matches a newline. */
    flags: z.string().regex(/^[ims]*$/, 'flags are letters of "ims" (i: ignore case, m: multiline, s: dot matches newline)').optional(),
  }),
  z.strictObject({ type: z.literal('answer_equals'), value: z.string(), mode: z.enum(['normalized', 'exact']).optional() }),
  z.strictObject({
    type: z.literal('answer_number'),
    value: z.number().finite(),
    tolerance: z.number().finite().nonnegative().optional(),
    relative: z.boolean().optional(),
  }),
  z.strictObject({ type: z.literal('answer_json'), schema: JsonObject.optional() }),
  z.strictObject({ type: z.literal('exit_reason'), equals: z.union([ExitReasonSchema, z.array(ExitReasonSchema).min(1)]) }),
  z
    .strictObject({
      type: z.literal('budget'),
      max_tokens: Count.optional(),
      max_cost_usd: z.number().finite().nonnegative().optional(),
      max_duration_ms: Count.optional(),
      max_tool_calls: Count.optional(),
      max_steps: Count.optional(),
    })
    .refine((c) => Object.keys(c).some((k) => k.startsWith('max_')), { message: 'give at least one of max_tokens, max_cost_usd, max_duration_ms, max_tool_calls, max_steps', path: ['type'] }),
] as const;
