import type { Trace } from '../schema/trace.js';
import { mergeSpans } from './mergeSpans.js';
import { newTraceContext, type OtlpReceiver } from './otlpReceiver.js';

export interface OtlpTrial {
  /** The trial's trace id (W3C): spans the agent sends under it are this trial's. */
  traceId: string;
  /** Environment for the agent's process: where to export, which trace to join, flush soon. */
  env: Record<string, string>;
  /** Waits the grace period for late spans, then merges them into the trial's trace. */
  finish(trace: Trace, graceMs?: number): Promise<Trace>;
}

/** One trial's share of a run-wide receiver: the wiring an adapter needs, in one call. */
export function otlpTrial(receiver: OtlpReceiver): OtlpTrial {
  const ctx = newTraceContext();
  return {
    traceId: ctx.traceId,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      // The receiver speaks OTLP/HTTP; some SDKs default to gRPC without this.
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_EXPORTER: 'otlp',
      // Batch processors export every 200 ms instead of 5 s, well inside the grace period.
      OTEL_BSP_SCHEDULE_DELAY: '200',
      TRACEPARENT: ctx.traceparent,
    },
    finish: async (trace, graceMs) => mergeSpans(trace, await receiver.settle(ctx.traceId, graceMs)),
  };
}
