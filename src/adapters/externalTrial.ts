import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { CaptureProxy, TrialChannel } from '../capture/captureProxy.js';
import type { OtlpReceiver } from '../capture/otlpReceiver.js';
import { otlpTrial, type OtlpTrial } from '../capture/otlpTrial.js';
import type { ErrorPattern } from '../capture/trafficSpans.js';
import type { Redactor } from '../schema/redact.js';
import { AGENT_INPUT_SCHEMA_VERSION, type AgentInput } from '../schema/agentIo.js';
import { taskInput, type Task } from '../schema/task.js';
import type { ModelInfo, Trace } from '../schema/trace.js';
import { OTLP_GRACE_MS } from '../capture/otlpReceiver.js';
import { spanAttributes } from '../schema/spanWriter.js';
import { readTraceFile } from './agentOutput.js';
import { assembleTrace, type TrialEvidence } from './assembleTrace.js';
import { proxiedModel } from './proxiedModel.js';
import { checkedTrace } from './checkedTrace.js';
import { createRunDir } from '../orchestrator/workspaces.js';
import type { AdapterRunContext } from '../schema/adapter.js';
import type { RecordContent } from '../schema/recordContent.js';

/** What the command and HTTP adapters share: the proxy, the model label, limits and rules. */
export interface ExternalAgentOptions {
  proxy: CaptureProxy;
  /** The run's OTLP receiver: spans an instrumented agent exports join its trial's trace. */
  otlp: OtlpReceiver;
  model: ModelInfo;
  /** --model, passed on as OPENAI_MODEL. */
  modelName: string | null;
  /** The run's per-task time limit (a task's own timeout_ms wins). */
  runTimeoutMs: number;
  defaultMaxSteps: number;
  errorPatterns: ErrorPattern[];
  /** Redacts evidence before it is cut (previews, stderr tails). */
  redactor: Redactor;
  /** How much of the model traffic's content the llm spans record (`--record-content`). */
  recordContent?: RecordContent;
}

/** How the agent ended, as its adapter saw it; the rest of the trial's evidence the trial holds. */
export type AgentEnding = Pick<TrialEvidence, 'started' | 'ended' | 'outcome' | 'ending' | 'output'>;

/** One trial of an external agent: its proxy path, W3C trace id, trace-file path and input. */
export interface ExternalTrial {
  channel: TrialChannel;
  /** The trial's trace context and OTLP wiring (its trace id is the input's trace_id). */
  otlp: OtlpTrial;
  input: AgentInput;
  /** The root span's id (16 hex), chosen up front so TRACEPARENT can name it. */
  rootSpanId: string;
  /** The agent's own limit: a little under the orchestrator's, so a hang is the agent's failure, not a run error. */
  agentTimeoutMs: number;
  /**
   * The trial's trace from how the agent ended: its proxied traffic, its trace file, its output, and
   * the spans it exported over OTLP (late ones waited for within the task's time limit).
   */
  finish(end: AgentEnding): Promise<Trace>;
  dispose(): Promise<void>;
}

export async function openExternalTrial(task: Task, ctx: AdapterRunContext, options: ExternalAgentOptions): Promise<ExternalTrial> {
  const limit = task.timeoutMs ?? options.runTimeoutMs;
  // Named as a run folder of this process, so a later run removes it if this one is killed.
  const scratch = await createRunDir();
  const agentTimeoutMs = Math.max(1, limit - Math.min(2_000, Math.max(250, Math.floor(limit * 0.2))));
  // The proxy retries provider faults until a little before the agent's own limit, so an outage is
  // the trial's PROVIDER_ERROR (an error), not the agent's timeout (a failure).
  const providerDeadline = Math.min(ctx.deadline, Date.now() + agentTimeoutMs - Math.min(1_000, Math.floor(agentTimeoutMs * 0.1)));
  const channel = options.proxy.openTrial(task.id, { deadline: providerDeadline, park: ctx.park });
  const otlp = otlpTrial(options.otlp);
  // The receiver keeps spans only of open trials' traces, and forgets them at dispose.
  options.otlp.open(otlp.traceId);
  const input: AgentInput = {
    schema_version: AGENT_INPUT_SCHEMA_VERSION,
    task_id: task.id,
    prompt: task.prompt ?? '',
    epoch: ctx.epoch,
    max_steps: task.maxSteps ?? options.defaultMaxSteps,
    metadata: task.metadata ?? {},
    workspace: ctx.workspace,
    trace_file: path.join(scratch, 'trace.json'),
    trace_id: otlp.traceId,
    openai_base_url: channel.baseUrl,
    openai_api_key: channel.apiKey,
    traceparent: otlp.traceparent,
    otlp_endpoint: otlp.endpoint,
  };
  return {
    channel,
    otlp,
    input,
    rootSpanId: otlp.rootSpanId,
    agentTimeoutMs,
    finish: async (end) => {
      const traffic = channel.close();
      const trace = assembleTrace({
        ...end,
        taskId: task.id,
        prompt: taskInput(task),
        epoch: ctx.epoch,
        traceId: input.trace_id,
        rootSpanId: otlp.rootSpanId,
        model: proxiedModel(options.model, options.modelName, traffic.exchanges.map((x) => x.model)),
        traceFile: readTraceFile(input.trace_file),
        traffic,
        errorPatterns: options.errorPatterns,
        preview: options.redactor.preview,
        ...(options.recordContent ? { recordContent: options.recordContent } : {}),
      });
      // settle waits at most 5 × its grace: keep that inside what is left of the task's limit.
      const merged = await otlp.finish(trace, Math.max(0, Math.min(OTLP_GRACE_MS, (ctx.deadline - Date.now() - 100) / 5)));
      const dropped = options.otlp.dropped(otlp.traceId);
      const marked = dropped === 0 ? merged : { ...merged, spans: merged.spans.map((s) => (s.span_id === otlp.rootSpanId ? { ...s, attributes: { ...s.attributes, ...spanAttributes({ 'agent.otlp_spans_dropped': dropped }) } } : s)) };
      return checkedTrace(marked);
    },
    dispose: async () => {
      channel.close();
      options.otlp.release(otlp.traceId);
      await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
