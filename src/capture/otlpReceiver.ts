import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { Span } from '../schema/trace.js';
import { buildTrace } from '../traceio/buildTrace.js';
import { quoteBigIntegers } from '../traceio/jsonText.js';
import { otlpSpans } from '../traceio/otlpJson.js';
import { otelConversations, type OtelSpan } from '../traceio/otelSpans.js';
import { decodeOtlpProtobuf } from '../traceio/otlpProto.js';

/**
 * How long a run waits after a trial ends for spans still on their way (an exporter's batch
 * timer, a slow flush) when none of that trial's spans has come yet. Once some have, waiting stops
 * after OTLP_QUIET_MS with nothing new. A run whose agents never export anything does not wait.
 */
export const OTLP_GRACE_MS = 1000;
/** Spans of a trace have arrived and then none for this long: the trace is complete. */
export const OTLP_QUIET_MS = 250;
/** Largest OTLP request body accepted (after decompression); bigger ones get 413. */
export const OTLP_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Most spans kept for one trace; the rest are dropped and counted. */
export const OTLP_MAX_SPANS_PER_TRACE = 20_000;
/** Most request bytes kept for one trace (each span counts its share of its request's body). */
export const OTLP_MAX_BYTES_PER_TRACE = 32 * 1024 * 1024;

export interface OtlpReceiverOptions {
  /** 0 (default) picks a free port. The receiver only ever listens on 127.0.0.1. */
  port?: number;
  maxBodyBytes?: number;
  /**
   * Keep only spans of traces opened with `open` (a run's trials): spans under any other trace id are
   * dropped on arrival. Off by default (a receiver that collects whatever it is sent, as in tests).
   */
  openTracesOnly?: boolean;
  maxSpansPerTrace?: number;
  maxBytesPerTrace?: number;
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT (exporters add /v1/traces). */
  endpoint: string;
  /** The spans received for a trace id, as tracegate spans (no root: the trial has its own). */
  spansFor(traceId: string): Span[];
  /**
   * Waits for late spans of a trace, then returns them: until OTLP_QUIET_MS pass with nothing new
   * once some have come, else for `graceMs` (none at all while the receiver has had no span from
   * anyone); never more than 5 × `graceMs`.
   */
  settle(traceId: string, graceMs?: number): Promise<Span[]>;
  traceIds(): string[];
  /** Starts keeping spans for a trace id (a trial about to start); needed with `openTracesOnly`. */
  open(traceId: string): void;
  /** Spans of the trace dropped past the per-trace caps. */
  dropped(traceId: string): number;
  /**
   * What became of the spans sent under another trace id while this trace was open: `adopted`
   * (tied to this trial by its resource attribute `tracegate.trace_id`, or as the only trial open),
   * `ambiguous` (several trials were open and the span named none; dropped).
   */
  foreign(traceId: string): { adopted: number; ambiguous: number };
  /**
   * Spans the receiver dropped, by reason: `unknown trace` (no trial open), `ambiguous` (several
   * open, none named), `late` (its trial had settled), `over cap` (the trace's caps).
   */
  droppedReasons(): Record<string, number>;
  /** Forgets the trace and its spans (its trial has settled); later spans for it are dropped. */
  release(traceId: string): void;
  close(): Promise<void>;
}

/** A W3C trace context for one trial: give `TRACEPARENT` to the agent, keep the trace id. */
export function newTraceContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // Over the cap the body is drained, not kept, so the sender still reads the 413.
      if (size > max * 4) req.destroy();
      else if (size <= max) chunks.push(c);
    });
    req.on('end', () => resolve(size > max ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The OTLP/HTTP receiver: POST /v1/traces, JSON or protobuf (gzip allowed), on loopback only. */
export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const max = options.maxBodyBytes ?? OTLP_MAX_BODY_BYTES;
  const maxSpans = options.maxSpansPerTrace ?? OTLP_MAX_SPANS_PER_TRACE;
  const maxBytes = options.maxBytesPerTrace ?? OTLP_MAX_BYTES_PER_TRACE;
  interface Kept {
    spans: Map<string, OtelSpan>;
    bytes: number;
    dropped: number;
    lastArrival: number | null;
    /** Opened for a trial (not a trace that arrived by itself in a collect-everything receiver). */
    trial: boolean;
    adopted: number;
    ambiguous: number;
  }
  const byTrace = new Map<string, Kept>();
  const kept = (trial = false): Kept => ({ spans: new Map(), bytes: 0, dropped: 0, lastArrival: null, trial, adopted: 0, ambiguous: 0 });
  /** Trace ids of trials that have settled (the last few thousand): a late span of one is not another trial's. */
  const released = new Set<string>();
  const reasons: Record<string, number> = {};
  const drop = (reason: string) => void (reasons[reason] = (reasons[reason] ?? 0) + 1);
  /**
   * The open trial a span under another trace id belongs to (an agent that ignores TRACEPARENT):
   * the one its resource attribute `tracegate.trace_id` names (OTEL_RESOURCE_ATTRIBUTES, which the
   * trial sets), else the only trial open. The span joins that trace; a parent not in it makes it
   * hang under the trial's root.
   */
  const adopt = (span: OtelSpan): [string, Kept] | null => {
    if (released.has(span.traceId)) return drop('late'), null;
    const named = span.resource?.['tracegate.trace_id'];
    if (typeof named === 'string') {
      const id = named.toLowerCase();
      const trace = byTrace.get(id);
      if (trace?.trial) return [id, trace];
      if (released.has(id)) return drop('late'), null;
    }
    const open = [...byTrace.entries()].filter(([, t]) => t.trial);
    if (open.length === 1) return open[0]!;
    if (open.length === 0) drop('unknown trace');
    else {
      drop('ambiguous');
      for (const [, t] of open) t.ambiguous++;
    }
    return null;
  };
  /** Some agent of the run has exported a span (then a trial with none yet waits its grace). */
  let heardAny = false;
  let inflight = 0;

  const answer = (res: ServerResponse, status: number, protobuf: boolean, message?: string) => {
    if (protobuf) {
      res.writeHead(status, { 'content-type': status === 200 ? 'application/x-protobuf' : 'text/plain' }).end(status === 200 ? undefined : message);
    } else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(status === 200 ? {} : { code: status, message }));
  };

  const server = createServer(async (req, res) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const protobuf = type === 'application/x-protobuf' || type === 'application/protobuf';
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/traces') return answer(res, 404, protobuf, 'only POST /v1/traces');
    inflight++;
    try {
      let body = await readBody(req, max);
      if (body === null) return answer(res, 413, protobuf, `body over ${max} bytes`);
      if (String(req.headers['content-encoding'] ?? '').toLowerCase() === 'gzip') body = gunzipSync(body, { maxOutputLength: max });
      let request: unknown;
      if (protobuf) request = decodeOtlpProtobuf(body);
      else if (type === 'application/json' || type === '') request = JSON.parse(quoteBigIntegers(body.toString('utf8')));
      else return answer(res, 415, false, `content-type ${type}: send application/json or application/x-protobuf`);
      const now = Date.now();
      const spans = otlpSpans(request, 'OTLP request');
      const share = spans.length > 0 ? body.length / spans.length : 0;
      for (let span of spans) {
        let trace = byTrace.get(span.traceId);
        if (!trace) {
          if (options.openTracesOnly) {
            // Not a trial's trace: an agent that ignores TRACEPARENT, or a trial already settled.
            const owner = adopt(span);
            if (!owner) continue;
            owner[1].adopted++;
            span = { ...span, traceId: owner[0], parentId: span.parentId && owner[1].spans.has(span.parentId) ? span.parentId : null };
            trace = owner[1];
          } else byTrace.set(span.traceId, (trace = kept()));
        }
        heardAny = true;
        trace.lastArrival = now;
        if (trace.spans.has(span.spanId)) {
          trace.spans.set(span.spanId, span); // a span sent twice (a retried export) is kept once
        } else if (trace.spans.size >= maxSpans || trace.bytes + share > maxBytes) {
          trace.dropped++;
          drop('over cap');
        } else {
          trace.spans.set(span.spanId, span);
          trace.bytes += share;
        }
      }
      answer(res, 200, protobuf);
    } catch (error) {
      answer(res, 400, protobuf, `not an OTLP trace export: ${(error as Error).message}`);
    } finally {
      inflight--;
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const spansFor = (traceId: string): Span[] => {
    const spans = byTrace.get(traceId.toLowerCase())?.spans;
    if (!spans || spans.size === 0) return [];
    const [conversation] = otelConversations([...spans.values()], 'otlp-receiver', traceId);
    const trace = buildTrace(conversation!);
    return trace.spans.filter((s) => s.parent_id !== null);
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    spansFor,
    traceIds: () => [...byTrace.keys()],
    open: (traceId) => {
      const id = traceId.toLowerCase();
      const existing = byTrace.get(id);
      if (!existing) byTrace.set(id, kept(true));
      else existing.trial = true;
    },
    dropped: (traceId) => byTrace.get(traceId.toLowerCase())?.dropped ?? 0,
    foreign: (traceId) => {
      const t = byTrace.get(traceId.toLowerCase());
      return { adopted: t?.adopted ?? 0, ambiguous: t?.ambiguous ?? 0 };
    },
    droppedReasons: () => ({ ...reasons }),
    release: (traceId) => {
      const id = traceId.toLowerCase();
      if (byTrace.get(id)?.trial) {
        released.add(id);
        if (released.size > 4096) released.delete(released.values().next().value!);
      }
      byTrace.delete(id);
    },
    settle: async (traceId, graceMs = OTLP_GRACE_MS) => {
      const id = traceId.toLowerCase();
      const start = Date.now();
      const quietMs = Math.min(graceMs, OTLP_QUIET_MS);
      for (;;) {
        const now = Date.now();
        const last = byTrace.get(id)?.lastArrival ?? undefined;
        // Spans of this trace came and then stopped: done. None came: an agent that exports nothing
        // (the receiver never heard from anyone) costs nothing; otherwise they get the whole grace.
        const done =
          inflight === 0 &&
          (last !== undefined ? now - Math.max(last, start - quietMs) >= quietMs : !heardAny || now - start >= graceMs);
        if (done || now - start >= graceMs * 5) return spansFor(traceId);
        await new Promise((r) => setTimeout(r, Math.min(50, quietMs)));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
