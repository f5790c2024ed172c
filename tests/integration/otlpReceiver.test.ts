import { spawn } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeSpans } from '../../src/capture/mergeSpans.js';
import { OTLP_GRACE_MS, newTraceContext, startOtlpReceiver, type OtlpReceiver } from '../../src/capture/otlpReceiver.js';
import { encodeOtlpProtobuf } from '../../src/traceio/otlpProto.js';
import { otlpTrial } from '../../src/capture/otlpTrial.js';
import { llmSpans, toolAttr, toolSpans, type Span } from '../../src/schema/trace.js';
import { ROOT } from '../helpers/cli.js';
import { TraceBuilder } from '../helpers/traceBuilder.js';

const AGENT = path.join(ROOT, 'tests/fixtures/otelAgent.mjs');

/** Runs the instrumented fixture agent as a real child process with the env a trial gives it. */
function runAgent(protocol: 'proto' | 'json', env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [AGENT, protocol], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the OTLP/HTTP receiver with the real OpenTelemetry JS SDK', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('listens on loopback only', () => {
    expect(receiver.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  for (const protocol of ['proto', 'json'] as const) {
    it(`receives an instrumented agent's spans (${protocol === 'proto' ? 'protobuf' : 'JSON'}) under the trial's trace id and merges them into its trace`, async () => {
      const ctx = newTraceContext();
      const run = await runAgent(protocol, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACEPARENT: ctx.traceparent });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe('README.md is a demo.');

      const spans = await receiver.settle(ctx.traceId, 100);
      expect(spans.every((s) => s.kind !== 'agent')).toBe(true);
      const tools = spans.filter((s) => s.kind === 'tool');
      expect(tools.map((s) => [toolAttr(s).name, toolAttr(s).ok, toolAttr(s).errorType])).toEqual([
        ['read_file', false, 'FILE_NOT_FOUND'],
        ['read_file', true, null],
      ]);
      expect(tools[0]!.events.map((e) => e.name)).toEqual(['exception']);
      const models = spans.filter((s) => s.kind === 'llm');
      expect(models.map((s) => s.attributes['gen_ai.usage.input_tokens'])).toEqual([40, 60]);

      // The trial's own trace (as the capture proxy would record it): one model call seen on the wire
      // at the time of the agent's first chat span, and its root.
      const trial = new TraceBuilder('fixture_task').build();
      const proxied: Span = { ...trial.spans[0]!, span_id: 'proxy1', parent_id: trial.spans[0]!.span_id, kind: 'llm', name: 'chat (proxy)', start: models[0]!.start, end: models[0]!.end, attributes: { step: 1, 'gen_ai.request.model': 'gpt-test' } };
      trial.spans.push(proxied);

      const merged = mergeSpans(trial, spans);
      expect(llmSpans(merged)).toHaveLength(2); // the proxy's call and the agent's first chat are one
      expect(llmSpans(merged)[0]!.attributes['gen_ai.usage.input_tokens']).toBe(40); // filled in from the agent's span
      expect(toolSpans(merged).map((s) => [toolAttr(s).name, toolAttr(s).step])).toEqual([
        ['read_file', 1],
        ['read_file', 1],
      ]);
      expect(toolSpans(merged).every((s) => s.parent_id === trial.spans[0]!.span_id)).toBe(true);
      // Late or repeated delivery adds nothing twice.
      expect(mergeSpans(merged, spans).spans).toHaveLength(merged.spans.length);
    });
  }

  it('otlpTrial gives an agent the env it needs and merges its spans into the trial trace', async () => {
    const trial = otlpTrial(receiver);
    expect(trial.env['TRACEPARENT']).toBe(`00-${trial.traceId}-${trial.env['TRACEPARENT']!.split('-')[2]}-01`);
    const run = await runAgent('proto', trial.env);
    expect(run.code).toBe(0);
    const trace = await trial.finish(new TraceBuilder('fixture_task').final(run.stdout.trim()).build(), 100);
    expect(toolSpans(trace).map((s) => toolAttr(s).name)).toEqual(['read_file', 'read_file']);
    expect(llmSpans(trace)).toHaveLength(2);
    expect(trace.final_answer.text).toBe('README.md is a demo.');
  });

  it('keeps traces apart, answers 400/404/413/415 to bad requests, and accepts gzip', async () => {
    const url = `${receiver.endpoint}/v1/traces`;
    const ids = { a: '1'.repeat(32), b: '2'.repeat(32) };
    const request = (traceId: string) => ({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: 'ab'.repeat(8), name: 'execute_tool t', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000100000000', attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }, { key: 'gen_ai.tool.name', value: { stringValue: 't' } }] }] }] }] });
    const post = (body: BodyInit, headers: Record<string, string>, to = url) => fetch(to, { method: 'POST', body, headers });
    expect((await post(JSON.stringify(request(ids.a)), { 'content-type': 'application/json' })).status).toBe(200);
    expect((await post(new Blob([Buffer.from(gzipSync(Buffer.from(JSON.stringify(request(ids.b)))))]), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status).toBe(200);
    expect((await post(new Blob([Buffer.from(encodeOtlpProtobuf(request(ids.b)))]), { 'content-type': 'application/x-protobuf' })).status).toBe(200);
    expect(receiver.spansFor(ids.a).map((s) => toolAttr(s).name)).toEqual(['t']);
    expect(receiver.spansFor(ids.b)).toHaveLength(1); // the same span sent twice is kept once
    expect((await post('{"resourceSpans": 3}', { 'content-type': 'application/json' })).status).toBe(400);
    expect((await post(new Blob([Buffer.from([0xff, 0xff, 0xff])]), { 'content-type': 'application/x-protobuf' })).status).toBe(400);
    expect((await post('{}', { 'content-type': 'application/json' }, `${receiver.endpoint}/v1/logs`)).status).toBe(404);
    expect((await post('x', { 'content-type': 'text/plain' })).status).toBe(415);
    const small = await startOtlpReceiver({ maxBodyBytes: 100 });
    try {
      expect((await post(JSON.stringify(request(ids.a)), { 'content-type': 'application/json' }, `${small.endpoint}/v1/traces`)).status).toBe(413);
    } finally {
      await small.close();
    }
    expect(OTLP_GRACE_MS).toBeGreaterThan(0);
  });

  it('a run receiver keeps only open traces, caps each (excess dropped and counted) and frees a released one', async () => {
    const run = await startOtlpReceiver({ openTracesOnly: true, maxSpansPerTrace: 3 });
    try {
      const url = `${run.endpoint}/v1/traces`;
      const span = (traceId: string, i: number) => ({ traceId, spanId: i.toString(16).padStart(16, '0'), name: 'execute_tool t', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000100000000', attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }, { key: 'gen_ai.tool.name', value: { stringValue: 't' } }] });
      const send = async (traceId: string, from: number, count: number) => {
        const spans = Array.from({ length: count }, (_, i) => span(traceId, from + i));
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }) });
        expect(res.status).toBe(200);
      };
      const trial = '3'.repeat(32);
      const stranger = '4'.repeat(32);
      run.open(trial);
      await send(stranger, 1, 2);
      await send(trial, 1, 2);
      await send(trial, 2, 4); // span 2 again (kept once), then 3, 4, 5: only one more fits
      expect(run.traceIds()).toEqual([trial]);
      expect(run.spansFor(stranger)).toEqual([]);
      expect(run.spansFor(trial)).toHaveLength(3);
      expect(run.dropped(trial)).toBe(2);
      run.release(trial);
      expect(run.traceIds()).toEqual([]);
      await send(trial, 10, 1);
      expect(run.spansFor(trial)).toEqual([]);
    } finally {
      await run.close();
    }
  });
});
