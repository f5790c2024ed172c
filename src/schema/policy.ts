import { z } from 'zod';
import { ToolLimitsShape } from './limits.js';
import { RiskLevelSchema } from './trace.js';

/**
 * A permission policy file: data, not code. Rules are tried in order and the first that matches a
 * shell command decides; a program on the allow list that no rule caught is allowed; anything else
 * gets `shell.default`. Every decision names the rule that made it (the trace's `risk_reason`).
 */
export const POLICY_SCHEMA_VERSION = 'policy/v1';

const RuleDecision = z.enum(['deny', 'require_approval', 'allow']);

export const ShellRuleSchema = z.strictObject({
  id: z.string().min(1),
  programs: z.array(z.string().min(1)).min(1),
  /** Regular expression tested against the command's arguments joined by single spaces. */
  when_args_match: z.string().min(1).optional(),
  /** The rule applies only under this sandbox: `process` (a process group) or `isolated` (bubblewrap). */
  sandbox: z.enum(['process', 'isolated']).optional(),
  /** The rule applies only to these subcommands, as the program's reading names them (git `status`, `branch --list`; npm `test`). */
  subcommands: z.array(z.string().min(1)).min(1).optional(),
  decision: RuleDecision,
  risk: RiskLevelSchema.default('high'),
  reason: z.string().min(1),
});
export type ShellRule = z.infer<typeof ShellRuleSchema>;

/**
 * Bounds for every command the sandbox runs (run_shell, outcome checks), under both sandboxes.
 * `processes` is RLIMIT_NPROC, and the pids.max of a cgroup of the command's own where tracegate may
 * make one (root does not obey RLIMIT_NPROC); threads count. `memory_mib` is what each process may
 * allocate (RLIMIT_DATA) and, where a memory cgroup can be made, what the command's processes hold
 * together. `address_space_mib` is RLIMIT_AS, the virtual address space of each process: WebAssembly
 * engines and JVMs reserve far more than they use (node ~10 GiB per WebAssembly memory), so it is wide.
 */
export const DEFAULT_COMMAND_LIMITS = Object.freeze({ processes: 1024, memory_mib: 4 * 1024, address_space_mib: 16 * 1024 });
export const CommandLimitsSchema = z.strictObject({
  processes: z.number().int().min(8).max(1_000_000).default(DEFAULT_COMMAND_LIMITS.processes),
  memory_mib: z.number().int().min(64).max(1024 * 1024).default(DEFAULT_COMMAND_LIMITS.memory_mib),
  address_space_mib: z.number().int().min(64).max(1024 * 1024).default(DEFAULT_COMMAND_LIMITS.address_space_mib),
});
export type CommandLimits = z.infer<typeof CommandLimitsSchema>;

export const PolicySchema = z.strictObject({
  schema_version: z.literal(POLICY_SCHEMA_VERSION),
  description: z.string().optional(),
  tools: z.record(
    z.string(),
    z.strictObject({ risk: RiskLevelSchema, decision: RuleDecision.default('allow') }),
  ),
  unknown_tool: RuleDecision.default('deny'),
  /** Tools from MCP servers that `tools` does not name (as `server__tool`). */
  mcp_tools: RuleDecision.default('require_approval'),
  /** Workspace paths no tool may read or write (globs relative to the workspace root). */
  secret_paths: z.array(z.string().min(1)).default([]),
  ...ToolLimitsShape,
  limits: CommandLimitsSchema.default({ ...DEFAULT_COMMAND_LIMITS }),
  shell: z.strictObject({
    allow: z.array(z.string().min(1)),
    /** Programs whose arguments are a command to run (env, timeout, nice ...): the wrapped command is judged instead. */
    wrappers: z.array(z.string().min(1)).default([]),
    /** Programs whose arguments are only ever text, never files (echo, printf); their arguments skip the path check. */
    text_args: z.array(z.string().min(1)).default([]),
    /** Variable assignments allowed before a command (LANG=C sort); any other needs approval. */
    safe_assignments: z.array(z.string().min(1)).default([]),
    rules: z.array(ShellRuleSchema).default([]),
    default: RuleDecision.exclude(['allow']).default('require_approval'),
    max_command_chars: z.number().int().positive().default(4000),
  }),
});
export type Policy = z.infer<typeof PolicySchema>;
