import { RUN_DEFAULTS } from '../../src/schema/runDefaults.js';
import type { Policy } from '../../src/schema/policy.js';
import { DEFAULT_RECORD_CONTENT, type RecordContent } from '../../src/schema/recordContent.js';
import type { Redactor } from '../../src/schema/redact.js';
import type { Approver } from '../approval/approval.js';
import type { McpServerSpec } from '../mcp/mcpServerSpec.js';
import type { Model, ToolChoice } from '../model/types.js';
import type { SandboxMode } from '../sandbox/runCommand.js';

export const DEFAULT_SYSTEM_PROMPT = [
  'You are a careful coding agent working inside a project workspace.',
  'Use the tools to inspect files and run commands; paths are relative to the workspace root.',
  'When a tool returns an error, read its message and suggestion and recover (for example, list the files to find the right name).',
  'Never try to reach outside the workspace or work around a refusal by the permission policy.',
  'When you are done, reply with the final answer as plain text and no tool call.',
].join(' ');

/** Everything a variant may change about the harness (issue: compare two variants). */
export interface HarnessSettings {
  systemPrompt: string;
  toolDescriptions: Record<string, string>;
  /** Parameter descriptions as the model sees them: {read_file: {path: "..."}}. */
  toolParameterDescriptions: Record<string, Record<string, string>>;
  temperature: number | null;
  /** Used when a task sets no max_steps. */
  maxSteps: number;
  /** Conversation size in characters above which old tool results are compressed. */
  compressionThreshold: number;
  outputCap: number;
  shellTimeoutMs: number;
  sandboxMode: SandboxMode;
  /** Why that sandbox runs (recorded on every trace's root span). */
  sandboxReason: string;
  /** OpenAI `tool_choice`: auto, required, none, or the name of one tool. */
  toolChoice: ToolChoice;
  /** OpenAI `parallel_tool_calls`; null leaves it to the provider. Calls of one reply always run in order. */
  parallelToolCalls: boolean | null;
  /** MCP servers whose tools the agent gets besides the built-in ones. */
  mcpServers: McpServerSpec[];
  /** How much of the model's input and output each llm span records (`--record-content`). */
  recordContent: RecordContent;
}

export const DEFAULT_SETTINGS: HarnessSettings = {
  systemPrompt: DEFAULT_SYSTEM_PROMPT,
  toolDescriptions: {},
  toolParameterDescriptions: {},
  temperature: 0,
  maxSteps: RUN_DEFAULTS.maxSteps,
  compressionThreshold: 24_000,
  outputCap: 8000,
  shellTimeoutMs: 10_000,
  sandboxMode: 'process',
  sandboxReason: 'process group: the default of the harness',
  toolChoice: 'auto',
  parallelToolCalls: null,
  mcpServers: [],
  recordContent: DEFAULT_RECORD_CONTENT,
};

export interface HarnessDeps {
  model: Model;
  /** The model name sent in requests (a provider may serve several). */
  modelName: string;
  policy: Policy;
  approver: Approver;
  settings: HarnessSettings;
  /** Redacts previews before they are cut (default: secrets from the environment and known key shapes). */
  redactor?: Redactor | undefined;
}
