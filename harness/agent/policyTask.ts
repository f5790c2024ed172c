import type { ToolLimits } from '../../src/schema/limits.js';
import type { Trace } from '../../src/schema/trace.js';
import { taskInput } from '../../src/schema/task.js';
import { TraceRecorder } from '../trace/recorder.js';
import type { HarnessDeps } from './config.js';
import { openTools, runSettingsAttributes, toolContext, toolLimits } from './runTools.js';
import { runToolCall, toolMessageContent } from './toolCall.js';

export interface PolicyTaskInput {
  id: string;
  epoch: number;
  workspace: string;
  toolCall: { name: string; arguments: Record<string, unknown> };
  /** false: the policy decides and the trace records it, but nothing runs. */
  execute: boolean;
  /** The task's own shell timeout and output cap (over the policy's). */
  toolLimits?: ToolLimits | undefined;
}

/**
 * A policy task: one tool call straight into the tool layer (validation, policy, approval,
 * sandbox), no model. This tests the safety boundary without waiting for a model to misbehave.
 */
export async function runPolicyTask(input: PolicyTaskInput, deps: HarnessDeps, signal: AbortSignal): Promise<Trace> {
  const prompt = taskInput({ prompt: null, toolCall: input.toolCall });
  const recorder = new TraceRecorder(input.id, input.epoch, { provider: 'none', mode: 'none', model: 'none', base_url: null }, deps.redactor, prompt);
  const limits = toolLimits(deps, input.toolLimits);
  recorder.setRoot(runSettingsAttributes(deps.settings, limits));
  // MCP servers start only when the call is for one of their tools.
  const needsMcp = input.toolCall.name.includes('__');
  const opened = needsMcp ? await openTools(deps.settings, input.workspace, signal) : await openTools({ ...deps.settings, mcpServers: [] }, input.workspace);
  if ('error' in opened) return recorder.finish(null, 'error', opened.error);
  try {
    const result = await runToolCall(
      { id: 'call_policy_1', name: input.toolCall.name, arguments: JSON.stringify(input.toolCall.arguments) },
      {
        taskId: input.id,
        step: 1,
        policy: deps.policy,
        approver: deps.approver,
        context: toolContext(deps, input.workspace, signal, limits),
        recorder,
        execute: input.execute,
        tools: opened.byName,
      },
    );
    return recorder.finish(toolMessageContent(result), 'completed');
  } finally {
    await opened.close();
  }
}
