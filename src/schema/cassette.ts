import path from 'node:path';
import { z } from 'zod';

/**
 * A cassette holds model responses for one task. `script`: hand-written, replayed in order, and
 * every report calls the run scripted. `recording`: written by `--record` from a live endpoint,
 * replayed by the hash of the normalized request.
 */
export const CASSETTE_SCHEMA_VERSION = 'cassette/v1';

export const CassetteToolCallSchema = z.strictObject({
  id: z.string().optional(),
  name: z.string().min(1),
  /** An object, or a raw string (to replay a malformed argument string exactly). */
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

export const CassetteResponseSchema = z.strictObject({
  content: z.string().nullable().default(null),
  refusal: z.string().nullable().default(null),
  tool_calls: z.array(CassetteToolCallSchema).default([]),
  usage: z
    .strictObject({ input_tokens: z.number().int().nonnegative(), output_tokens: z.number().int().nonnegative() })
    .optional(),
  /** As the model ended (`length` for a cut answer); absent: `tool_calls` or `stop` by the calls. */
  finish_reason: z.string().min(1).optional(),
  /** A reasoning model's thinking text (`reasoning_content`), replayed as it was sent. */
  reasoning_content: z.string().optional(),
});
export type CassetteResponse = z.infer<typeof CassetteResponseSchema>;

export const CassetteSchema = z.strictObject({
  schema_version: z.literal(CASSETTE_SCHEMA_VERSION),
  kind: z.enum(['script', 'recording']),
  task_id: z.string().min(1),
  model: z.string().min(1),
  note: z.string().optional(),
  interactions: z.array(
    z.strictObject({ request_hash: z.string().optional(), response: CassetteResponseSchema }),
  ),
});
export type Cassette = z.infer<typeof CassetteSchema>;

/** One cassette file per task in a folder; the harness and the capture proxy both use this name. */
export function cassettePath(dir: string, taskId: string): string {
  return path.join(dir, `${taskId}.json`);
}
