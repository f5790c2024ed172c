import type { Trace } from '../schema/trace.js';
import { mergeSpans } from './mergeSpans.js';
import { newTraceContext, type OtlpReceiver } from './otlpReceiver.js';

export interface OtlpTrial {
  /** The trial's trace id (W3C): spans the agent sends under it are this trial's. */
  traceId: string;
  /** The trial's root span id (16 hex), the parent TRACEPARENT names. */
  rootSpanId: string;
  /** `00-<traceId>-<rootSpanId>-01`, for TRACEPARENT and an HTTP agent's `traceparent` header. */
  traceparent: string;
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT (an SDK appends /v1/traces). */
  endpoint: string;
  /** The full traces URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as is, nothing appended). */
  tracesEndpoint: string;
  /** Environment for the agent's process: where to export, which trace to join, flush soon. */
  env: Record<string, string>;
  /** Waits the grace period for late spans, then merges them into the trial's trace. */
  finish(trace: Trace, graceMs?: number): Promise<Trace>;
}

/** One trial's share of a run-wide receiver: the wiring an adapter needs, in one call. */
export function otlpTrial(receiver: OtlpReceiver): OtlpTrial {
  const ctx = newTraceContext();
  const tracesEndpoint = `${receiver.endpoint}/v1/traces`;
  return {
    traceId: ctx.traceId,
    rootSpanId: ctx.spanId,
    traceparent: ctx.traceparent,
    endpoint: receiver.endpoint,
    tracesEndpoint,
    env: {
      // Per the OTLP exporter spec: the generic variable is a base URL the SDK appends /v1/traces
      // to; the signal-specific one is the whole URL. Both are set so either kind of SDK finds us.
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: tracesEndpoint,
      // The receiver speaks OTLP/HTTP; some SDKs default to gRPC without this.
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_EXPORTER: 'otlp',
      // Batch processors export every 200 ms instead of 5 s, well inside the grace period.
      OTEL_BSP_SCHEDULE_DELAY: '200',
      TRACEPARENT: ctx.traceparent,
      // For agents that ignore TRACEPARENT (Gemini CLI): their spans name the trial on their resource.
      OTEL_RESOURCE_ATTRIBUTES: `tracegate.trace_id=${ctx.traceId}`,
    },
    finish: async (trace, graceMs) => mergeSpans(trace, await receiver.settle(ctx.traceId, graceMs)),
  };
}
