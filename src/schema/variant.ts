import { z } from 'zod';
import { McpServerSchema } from './mcpServer.js';

export const VARIANT_SCHEMA_VERSION = 'variant/v1';

/** A variant overrides harness settings, so that two versions of an agent can be compared. */
export const VariantSchema = z.strictObject({
  schema_version: z.literal(VARIANT_SCHEMA_VERSION),
  name: z.string().min(1).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - (it names an output folder)'),
  description: z.string().optional(),
  model: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  max_steps: z.number().int().positive().optional(),
  system_prompt: z.string().min(1).optional(),
  /** Replaces a tool's description as the model sees it. */
  tool_descriptions: z.record(z.string(), z.string().min(1)).optional(),
  /** Replaces a tool parameter's description: {"read_file": {"path": "..."}}. Validation is unchanged. */
  tool_parameter_descriptions: z.record(z.string(), z.record(z.string(), z.string().min(1))).optional(),
  compression_threshold: z.number().int().positive().optional(),
  /** Paths are relative to the variant file. */
  policy: z.string().min(1).optional(),
  cassettes: z.string().min(1).optional(),
  /** OpenAI tool_choice: "auto", "required", "none", or {"name": TOOL} to force one tool. */
  tool_choice: z.union([z.enum(['auto', 'required', 'none']), z.strictObject({ name: z.string().min(1) })]).optional(),
  /** OpenAI parallel_tool_calls; the harness runs the calls of one reply in order either way. */
  parallel_tool_calls: z.boolean().optional(),
  /** MCP servers whose tools the harness offers (paths relative to the variant file). */
  mcp_servers: z.array(McpServerSchema).optional(),
});
export type Variant = z.infer<typeof VariantSchema>;
