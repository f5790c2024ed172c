import type { ToolLimits } from '../../src/schema/limits.js';
import { modelContentAttributes } from '../../src/schema/recordContent.js';
import type { Trace } from '../../src/schema/trace.js';
import { compressConversation } from '../compression/compress.js';
import { ModelError, type ChatMessage } from '../model/types.js';
import { toolDefinitions } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';
import { ProviderFaultError } from '../../src/provider/index.js';
import type { SpanWriter } from '../../src/schema/spanWriter.js';
import { TraceRecorder } from '../trace/recorder.js';
import type { HarnessDeps } from './config.js';
import { openTools, runSettingsAttributes, toolContext, toolLimits, type OpenedTools } from './runTools.js';
import { runToolCall, toolMessageContent } from './toolCall.js';

export interface AgentTask {
  id: string;
  prompt: string;
  /** Real path of the task's fresh workspace. */
  workspace: string;
  maxSteps: number;
  epoch: number;
  /** Epoch ms by which the task must end (model retries stay within it). */
  deadline?: number | undefined;
  /** Lends the task's work slot while the model waits out a provider backoff. */
  park?: (<T>(wait: Promise<T>) => Promise<T>) | undefined;
  /** The task's own shell timeout and output cap (over the policy's). */
  toolLimits?: ToolLimits | undefined;
}

const NUDGE = 'Your last reply was empty. Call a tool, or give your final answer as plain text.';
/**
 * The most tool calls one reply may run (models that call in parallel send a few dozen at most). The
 * endpoint is untrusted: a reply with thousands of calls must not run them all inside one step.
 */
export const MAX_TOOL_CALLS_PER_REPLY = 64;

/** Removes reasoning blocks (`<think>…</think>`, also one left unclosed) from a reply. */
export function stripThink(text: string): string {
  return text
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .replace(/<think>[\s\S]*$/i, '')
    .trim();
}

/**
 * The agent loop: ask the model, run the tool calls it returns, feed the results back, until it
 * answers without a tool call or runs out of steps. Limits are checked before each model call.
 */
export async function runAgent(task: AgentTask, deps: HarnessDeps, signal: AbortSignal): Promise<Trace> {
  const { settings } = deps;
  const recorder = new TraceRecorder(task.id, task.epoch, deps.model.info, deps.redactor, task.prompt);
  const limits = toolLimits(deps, task.toolLimits);
  recorder.setRoot(runSettingsAttributes(settings, limits));
  const opened = await openTools(settings, task.workspace, signal);
  if ('error' in opened) return recorder.finish(null, 'error', opened.error);
  if (opened.dropped.length > 0) recorder.setRoot({ 'mcp.tools_dropped': opened.dropped });
  try {
    return await agentLoop(task, deps, signal, recorder, opened, toolContext(deps, task.workspace, signal, limits));
  } finally {
    await opened.close();
  }
}

async function agentLoop(task: AgentTask, deps: HarnessDeps, signal: AbortSignal, recorder: TraceRecorder, extra: OpenedTools, context: ToolContext): Promise<Trace> {
  const { settings } = deps;
  const tools = toolDefinitions(settings.toolDescriptions, settings.toolParameterDescriptions, extra.list);
  const choice = settings.toolChoice;
  if (typeof choice === 'object' && !tools.some((t) => t.function.name === choice.name)) {
    return recorder.finish(null, 'error', { code: 'TOOL_CHOICE', message: `tool_choice names ${choice.name}, which is not a tool of this run` });
  }
  // A forced choice (required, a named tool) holds until a tool has run, then `auto`: otherwise the
  // model could never answer (the OpenAI Agents SDK's reset_tool_choice does the same).
  let currentChoice = choice;
  let messages: ChatMessage[] = [
    { role: 'system', content: settings.systemPrompt },
    { role: 'user', content: task.prompt },
  ];

  try {
    for (let step = 1; step <= task.maxSteps; step++) {
      signal.throwIfAborted();
      const compressed = compressConversation(messages, settings.compressionThreshold);
      if (compressed) {
        messages = compressed.messages;
        recorder
          .start('compression', 'compress context', undefined, {
            step,
            chars_before: compressed.charsBefore,
            chars_after: compressed.charsAfter,
            compressed_results: compressed.compressedResults,
            compressed_call_ids: compressed.compressedCallIds,
          })
          .end();
      }

      const llm = recorder.start('llm', `chat ${deps.modelName}`, undefined, {
        step,
        'gen_ai.operation.name': 'chat',
        'gen_ai.system': deps.model.info.provider,
        'gen_ai.request.model': deps.modelName,
        'gen_ai.request.temperature': settings.temperature,
        'tracegate.request.tool_choice': typeof currentChoice === 'string' ? currentChoice : currentChoice.name,
        'llm.mode': deps.model.info.mode,
        'llm.messages': messages.length,
      });
      const reply = await completeOrMark(llm, () => deps.model.complete(
        {
          model: deps.modelName,
          messages,
          tools,
          temperature: settings.temperature,
          ...(currentChoice !== 'auto' ? { toolChoice: currentChoice } : {}),
          ...(settings.parallelToolCalls !== null ? { parallelToolCalls: settings.parallelToolCalls } : {}),
        },
        { taskId: task.id, step, signal, deadline: task.deadline, park: task.park },
      ));
      recorder.addUsage(reply.usage.input_tokens, reply.usage.output_tokens);
      const toolCalls = reply.toolCalls.slice(0, MAX_TOOL_CALLS_PER_REPLY);
      if (toolCalls.length < reply.toolCalls.length) llm.event('tool_calls_capped', { received: reply.toolCalls.length, run: toolCalls.length });
      const visible = stripThink(reply.content ?? '');
      llm
        .set({
          'gen_ai.usage.input_tokens': reply.usage.input_tokens,
          'gen_ai.usage.output_tokens': reply.usage.output_tokens,
          'gen_ai.response.finish_reasons': reply.finishReason ? [reply.finishReason] : [],
          'llm.tool_calls': toolCalls.length,
          ...modelContentAttributes(settings.recordContent, (text, max) => recorder.preview(text, max), { input: messages, output: reply.content }),
          'llm.think_stripped': visible !== (reply.content ?? '').trim(),
          'llm.provider_retries': reply.providerRetries || undefined,
        })
        .end();

      if (toolCalls.length === 0) {
        if (reply.refusal) return recorder.finish(reply.refusal, 'refused');
        if (visible) return recorder.finish(visible, 'completed');
        llm.event('empty_reply');
        messages.push({ role: 'assistant', content: reply.content ?? '' }, { role: 'user', content: NUDGE });
        continue;
      }

      messages.push({
        role: 'assistant',
        content: reply.content,
        tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });
      if (currentChoice !== 'none') currentChoice = 'auto';
      // Several calls of one reply run one after another, in the order the model gave them.
      for (const [index, call] of toolCalls.entries()) {
        const result = await runToolCall(call, {
          taskId: task.id,
          step,
          policy: deps.policy,
          approver: deps.approver,
          context,
          recorder,
          execute: true,
          parentSpanId: llm.id,
          tools: extra.byName,
          callIndex: index,
        });
        messages.push({ role: 'tool', tool_call_id: call.id, content: toolMessageContent(result) });
      }
    }
    return recorder.finish(null, 'max_steps');
  } catch (error) {
    if (error instanceof ModelError) return recorder.finish(null, 'error', { code: error.code, message: error.message });
    throw error;
  }
}

/**
 * A model call that failed (a provider fault that outlasted the task's budget, a cassette miss) is
 * an error span with the reason, the fault and how often it was retried; the trial's error follows.
 */
async function completeOrMark<T>(llm: SpanWriter, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ModelError) {
      const fault = error.cause instanceof ProviderFaultError ? error.cause : null;
      llm
        .set({
          'llm.error': error.message,
          'llm.provider_fault': fault?.fault,
          'llm.provider_retries': fault?.retries,
          'http.response.status_code': fault?.status ?? undefined,
        })
        .end('error');
    }
    throw error;
  }
}
