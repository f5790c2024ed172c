import { z } from 'zod';
import { TimeoutMsSchema, ToolLimitsShape, type ToolLimits } from './limits.js';
import { JUDGED_CHECK_SCHEMAS } from './judgedCheckSpecs.js';
import { RUBRIC_CHECK_SCHEMA } from './rubric.js';
import { McpServerSchema } from './mcpServer.js';
import { ErrorTypeSchema, PolicyDecisionSchema } from './trace.js';

export { MAX_TIMEOUT_MS } from './limits.js';

/**
 * One JSONL line of a suite. The shorthand fields, the seed aliases and the general `checks`
 * list all become the same CheckSpec objects (see normalizeTask in src/suite).
 */

/** `blocked` = the call did not execute (denied, or approval required and not granted). */
export const ExpectedDecisionSchema = z.union([PolicyDecisionSchema, z.literal('blocked')]);
export type ExpectedDecision = z.infer<typeof ExpectedDecisionSchema>;

export const PolicyExpectationSchema = z.strictObject({
  /** Only tool calls of this tool are matched (default: every tool call). */
  tool: z.string().min(1).optional(),
  /** Only tool calls whose arguments contain this regular expression are matched. */
  match: z.string().min(1).optional(),
  decision: z.union([ExpectedDecisionSchema, z.array(ExpectedDecisionSchema).min(1)]),
  /** true: a model that never attempts the call passes too ("blocked or never attempted"). */
  or_not_attempted: z.boolean().optional(),
});
export type PolicyExpectation = z.infer<typeof PolicyExpectationSchema>;

const ExpectedPolicyField = z.union(
  [ExpectedDecisionSchema, PolicyExpectationSchema, z.array(PolicyExpectationSchema).min(1)],
  {
    error:
      'expected "allow", "deny", "require_approval" or "blocked", an object {tool?, match?, decision, or_not_attempted?}, or a list of such objects',
  },
);

export const CheckSpecSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('contains'),
    values: z.array(z.string()).min(1),
    case_sensitive: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal('not_contains'),
    values: z.array(z.string()).min(1),
    case_sensitive: z.boolean().optional(),
  }),
  z.strictObject({ type: z.literal('error_types'), types: z.array(ErrorTypeSchema).min(1) }),
  z.strictObject({ type: z.literal('policy'), ...PolicyExpectationSchema.shape }),
  z.strictObject({ type: z.literal('max_steps'), max: z.number().int().positive() }),
  z.strictObject({ type: z.literal('tool_called'), tools: z.array(z.string().min(1)).min(1) }),
  z.strictObject({ type: z.literal('event_type'), value: z.string().min(1) }),
  z.strictObject({ type: z.literal('completed') }),
  ...JUDGED_CHECK_SCHEMAS,
  // Outcome checks: judged from what the runner found in the final workspace (src/runner/outcomeProbe.ts).
  z.strictObject({
    type: z.literal('command'),
    run: z.string().min(1),
    exit_code: z.number().int().min(0).max(255).optional(),
    output_matches: z.string().min(1).optional(),
    timeout_ms: z.number().int().positive().max(3_600_000).optional(),
  }),
  z.strictObject({
    type: z.literal('file'),
    path: z.string().min(1),
    exists: z.boolean().optional(),
    contains: z.array(z.string()).min(1).optional(),
    matches: z.string().min(1).optional(),
    equals: z.string().min(1).optional(),
    json_path: z.string().min(1).optional(),
    value: z.unknown().optional(),
  }),
  z.strictObject({
    type: z.literal('changed_files'),
    only: z.array(z.string().min(1)).min(1).optional(),
    unchanged: z.array(z.string().min(1)).min(1).optional(),
    max: z.number().int().nonnegative().optional(),
  }),
  z.strictObject({
    type: z.literal('custom'),
    run: z.string().min(1).optional(),
    module: z.string().min(1).optional(),
    timeout_ms: z.number().int().positive().max(3_600_000).optional(),
  }),
  RUBRIC_CHECK_SCHEMA,
]);
export type CheckSpec = z.infer<typeof CheckSpecSchema>;
export type CheckType = CheckSpec['type'];

export const ToolCallSchema = z.strictObject({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});

export const RawTaskSchema = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'must be letters, digits, _ . : - (it names trace files)'),
    prompt: z.string().min(1).optional(),
    task: z.string().min(1).optional(),
    tool_call: ToolCallSchema.optional(),
    execute: z.boolean().optional(),
    workspace: z.string().min(1).optional(),
    /** A fixture folder copied into the final workspace after the agent finished (hidden tests). */
    hidden_workspace: z.string().min(1).optional(),
    expected_contains: z.array(z.string()).min(1).optional(),
    expected_final_contains: z.array(z.string()).min(1).optional(),
    case_sensitive: z.boolean().optional(),
    expected_error_types: z.array(ErrorTypeSchema).min(1).optional(),
    expected_error_type: ErrorTypeSchema.optional(),
    expected_event_type: z.string().min(1).optional(),
    expected_policy: ExpectedPolicyField.optional(),
    expected_tools: z.array(z.string().min(1)).min(1).optional(),
    max_steps: z.number().int().positive().max(1000).optional(),
    timeout_ms: TimeoutMsSchema.optional(),
    ...ToolLimitsShape,
    tags: z.array(z.string().min(1)).optional(),
    checks: z.array(CheckSpecSchema).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((t, ctx) => {
    const inputs = [t.prompt, t.task, t.tool_call].filter((v) => v !== undefined).length;
    if (inputs !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['prompt'],
        message:
          inputs === 0
            ? 'a task needs one of prompt (alias task) or tool_call'
            : 'give only one of prompt, task and tool_call',
      });
    }
    if (t.execute !== undefined && t.tool_call === undefined) {
      ctx.addIssue({ code: 'custom', path: ['execute'], message: 'execute applies only to tool_call tasks' });
    }
    if (t.expected_contains && t.expected_final_contains) {
      ctx.addIssue({
        code: 'custom',
        path: ['expected_final_contains'],
        message: 'give expected_contains or its alias expected_final_contains, not both',
      });
    }
  });
export type RawTask = z.infer<typeof RawTaskSchema>;

/** A validated task with every check spelled out; what adapters and checks receive. */
export interface Task {
  id: string;
  /** The file and line the task came from, for messages. */
  source: { file: string; line: number };
  prompt: string | null;
  toolCall: { name: string; arguments: Record<string, unknown>; execute: boolean } | null;
  /** Absolute path of the fixture tree, or null for an empty workspace. */
  workspace: string | null;
  /** Absolute path of the folder copied in after the agent finished, before outcome checks. */
  hiddenWorkspace?: string | null;
  /** Absolute path of the suite's folder: `file.equals` and `custom.module` resolve against it. */
  suiteDir?: string;
  maxSteps: number | null;
  timeoutMs: number | null;
  /** The task's own tool limits (`shell_timeout_ms`, `output_cap`); unset ones come from the policy. */
  toolLimits?: ToolLimits;
  tags: string[];
  checks: CheckSpec[];
  /** Stable fingerprint of the task's definition; a baseline uses it to tell a changed task. */
  fingerprint: string;
  /** Free-form data from the suite line, handed to external agents as-is. */
  metadata?: Record<string, unknown>;
}

/**
 * What a task asks, as one text for traces, reports and replay: its prompt, or for a policy task
 * (no model) the tool call it makes, `tool call run_shell {"command":"rm -rf build"}`.
 */
export function taskInput(task: { prompt: string | null; toolCall: { name: string; arguments: Record<string, unknown> } | null }): string | null {
  if (task.prompt !== null) return task.prompt;
  return task.toolCall ? `tool call ${task.toolCall.name} ${JSON.stringify(task.toolCall.arguments)}` : null;
}

/**
 * An optional first line of a suite: `{"suite": {...}}`. Paths are relative to the suite file.
 * Command-line flags override it; a live model given on the command line always wins over cassettes.
 */
export const SuiteHeaderSchema = z.strictObject({
  suite: z.strictObject({
    description: z.string().optional(),
    /** Cassettes replayed when no model is named on the command line (reports say so). */
    cassettes: z.string().min(1).optional(),
    /** Judge cassettes that rubric checks replay from when no judge is named on the command line. */
    judge_cassettes: z.string().min(1).optional(),
    /** The permission policy the harness runs this suite under. */
    policy: z.string().min(1).optional(),
    /** A price table JSON for cost (docs/checks.md#cost), relative to the suite file. */
    price_table: z.string().min(1).optional(),
    /** MCP servers whose tools the reference harness offers in this suite (paths relative to the suite). */
    mcp_servers: z.array(McpServerSchema).optional(),
    /** External agents: a tool result whose text matches `pattern` (a regular expression) carries `error_type`. */
    error_patterns: z.array(z.strictObject({ pattern: z.string().min(1), error_type: ErrorTypeSchema })).optional(),
    /**
     * External agents: volatile values in what the agent sends (PIDs, chunk ids, wall times in tool
     * output) replaced by `replacement` (default `<masked>`) before a request is matched to a cassette.
     */
    mask_patterns: z.array(z.strictObject({ pattern: z.string().min(1), replacement: z.string().optional() })).optional(),
  }),
});
export type SuiteHeader = z.infer<typeof SuiteHeaderSchema>['suite'];
