import type { z } from 'zod';
import type { SpanAttributes } from '../../src/schema/traceVocabulary.js';
import type { Approver } from '../approval/approval.js';
import { decideToolCall, type Decision } from '../policy/decide.js';
import type { Policy } from '../../src/schema/policy.js';
import { sandboxKind } from '../sandbox/sandboxChoice.js';
import { findTool } from '../tools/registry.js';
import { fault, type Tool, type ToolContext, type ToolResult } from '../tools/types.js';
import type { TraceRecorder } from '../trace/recorder.js';

const ARGUMENT_CHARS_KEPT = 4000;
const RESULT_PREVIEW_CHARS = 2000;

export interface ToolCallRequest {
  id: string;
  name: string;
  /** The raw argument string as the model sent it. */
  arguments: string;
}

export interface ToolLayer {
  taskId: string;
  step: number;
  policy: Policy;
  approver: Approver;
  context: ToolContext;
  recorder: TraceRecorder;
  /** false: decide and record, but run nothing (policy audits). */
  execute: boolean;
  /** The model call that asked for this tool call (tool spans hang under it); the root otherwise. */
  parentSpanId?: string;
  /** Tools besides the built-in ones (from MCP servers), by name. */
  tools?: ReadonlyMap<string, Tool>;
  /** 0-based position of this call among the calls of one model reply. */
  callIndex?: number;
}

function zodProblems(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
}

/**
 * The harness's tool layer: validation, permission policy, approval, then the sandboxed tool.
 * Every outcome is a ToolResult for the model and one tool span with the permission fields.
 */
export async function runToolCall(call: ToolCallRequest, layer: ToolLayer): Promise<ToolResult> {
  const span = layer.recorder.start('tool', `tool ${call.name}`, layer.parentSpanId, {
    step: layer.step,
    'gen_ai.tool.name': call.name,
    'gen_ai.tool.call.id': call.id,
    'tool.call_index': layer.callIndex ?? 0,
    'gen_ai.tool.call.arguments': layer.recorder.preview(call.arguments, ARGUMENT_CHARS_KEPT),
    approval_required: false,
    approved: null,
    executed: false,
  });
  const record = (result: ToolResult, extra: SpanAttributes = {}) => {
    span
      .set({
        'result.ok': result.ok,
        error_type: result.error_type,
        recoverable: result.recoverable,
        suggestion: result.suggestion,
        message: result.message,
        output_chars: result.output_chars ?? result.result.length,
        truncated: result.truncated ?? false,
        'gen_ai.tool.call.result': layer.recorder.preview(result.result, RESULT_PREVIEW_CHARS),
        ...extra,
      })
      .end(result.ok ? 'ok' : 'error');
    return result;
  };

  const tool = layer.tools?.get(call.name) ?? findTool(call.name);
  const mcpServer = tool && 'mcpServer' in tool ? String(tool.mcpServer) : undefined;
  if (mcpServer) span.set({ 'tool.origin': 'mcp', 'mcp.server': mcpServer });
  if (!tool) {
    span.set({ policy_decision: 'deny', risk_level: 'high', risk_reason: 'unknown-tool: not a tool of this harness' });
    return record(fault('UNKNOWN_TOOL', `there is no tool named ${call.name}`, { suggestion: 'use one of the listed tools' }));
  }

  let parsedJson: unknown;
  try {
    parsedJson = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    span.set({ policy_decision: null, risk_reason: 'invalid-arguments: not judged' });
    return record(
      fault('INVALID_ARGUMENTS', `arguments are not valid JSON: ${(error as Error).message}`, {
        suggestion: `send a JSON object matching the ${call.name} schema`,
      }),
    );
  }
  const parsed = tool.schema.safeParse(parsedJson);
  if (!parsed.success) {
    span.set({ policy_decision: null, risk_reason: 'invalid-arguments: not judged' });
    return record(
      fault('INVALID_ARGUMENTS', `invalid arguments for ${call.name}: ${zodProblems(parsed.error)}`, {
        suggestion: `send arguments that match the ${call.name} schema exactly`,
      }),
    );
  }
  const args = parsed.data as Record<string, unknown>;

  const decision: Decision = await decideToolCall(layer.policy, { tool: call.name, args }, layer.context.workspace, {
    sandbox: sandboxKind(layer.context.sandboxMode),
    mcp: mcpServer !== undefined,
  });
  span.set({
    policy_decision: decision.decision,
    risk_level: decision.risk,
    risk_reason: `${decision.rule}: ${decision.reason}`,
    'sandbox.mode': call.name === 'run_shell' ? layer.context.sandboxMode : undefined,
  });

  if (decision.decision === 'deny') {
    return record(
      fault(decision.errorType ?? 'PERMISSION_DENIED', `refused by the permission policy (${decision.rule}): ${decision.reason}`, {
        recoverable: true,
        suggestion: 'this action is not permitted; do not retry it in another form, continue without it',
      }),
    );
  }
  if (decision.decision === 'require_approval') {
    span.set({ approval_required: true });
    if (!layer.execute) return record(fault('APPROVAL_DENIED', 'needs approval; not asked in an audit run'));
    const answer = await layer.approver.ask({
      taskId: layer.taskId,
      tool: call.name,
      summary: typeof args['command'] === 'string' ? args['command'] : call.arguments,
      rule: decision.rule,
      reason: decision.reason,
      ...(decision.asks ? { rules: decision.asks } : {}),
    });
    span.set({ approved: answer.approved, 'approval.via': answer.via });
    if (!answer.approved) {
      return record(
        fault('APPROVAL_DENIED', `approval was refused (${answer.via.replace('_', '-')}): ${decision.reason}`, {
          suggestion: 'continue without this action',
        }),
      );
    }
  }
  if (!layer.execute) {
    return record({ ok: true, result: '(not executed: policy audit)', error_type: null, message: null, recoverable: false, suggestion: null });
  }

  span.set({ executed: true });
  try {
    const result = await tool.execute(args as never, layer.context);
    return record(result, { exit_code: result.exit_code ?? undefined });
  } catch (error) {
    return record(fault('COMMAND_FAILED', `${call.name} failed: ${(error as Error).message}`));
  }
}

/** What the model sees of a result: the ToolResult as JSON. */
export function toolMessageContent(result: ToolResult): string {
  const { ok, result: text, error_type, message, recoverable, suggestion } = result;
  return JSON.stringify(ok ? { ok, result: text, ...(error_type ? { error_type } : {}) } : { ok, error_type, message, recoverable, suggestion, result: text || undefined });
}
