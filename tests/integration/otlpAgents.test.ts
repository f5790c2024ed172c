import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ROOT_CONTEXT, trace as otelTrace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { toolAttr, toolSpans, type Trace } from '../../src/schema/trace.js';
import { runCli, tempDir } from '../helpers/cli.js';

/**
 * Agents instrumented with the real OpenTelemetry JS SDK, run through `tracegate run` (command and
 * HTTP adapters): the spans they export to the run's OTLP receiver land in their trial's trace, and
 * the suite's checks pass because of them.
 */
const offline = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '' };
const TASK = { id: 'otel_readme', prompt: 'Read README2.md, else README.md, and summarize it.', expected_contains: ['demo'], expected_tools: ['read_file'], expected_error_types: ['FILE_NOT_FOUND'] };

interface Report {
  tasks: Array<{ id: string; status: string; failure_reason: string | null; trials: Array<{ trace_file: string | null; error: { code: string; message: string } | null }> }>;
}

function suite(): { suite: string; out: string } {
  const dir = tempDir();
  const file = path.join(dir, 'suite.jsonl');
  writeFileSync(file, JSON.stringify(TASK) + '\n');
  return { suite: file, out: path.join(dir, 'out') };
}

function result(out: string): { task: Report['tasks'][number]; trace: Trace } {
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report;
  const task = report.tasks[0]!;
  return { task, trace: JSON.parse(readFileSync(path.join(out, task.trials[0]!.trace_file!), 'utf8')) as Trace };
}

function expectAgentSpans(trace: Trace): void {
  const root = trace.spans.find((s) => s.parent_id === null)!;
  const tools = toolSpans(trace);
  expect(tools.map((s) => [toolAttr(s).name, toolAttr(s).ok, toolAttr(s).errorType])).toEqual([
    ['read_file', false, 'FILE_NOT_FOUND'],
    ['read_file', true, null],
  ]);
  expect(tools.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['call_1', 'call_2']);
  // The agent's own invoke_agent span is not copied; its children hang under the trial's root (TRACEPARENT's span).
  expect(trace.spans.filter((s) => s.kind === 'agent')).toHaveLength(1);
  const byId = new Map(trace.spans.map((s) => [s.span_id, s]));
  const rootOf = (id: string | null): string | null => (id === null || byId.get(id)!.parent_id === null ? id : rootOf(byId.get(id)!.parent_id));
  expect(tools.every((s) => byId.has(s.parent_id!) && rootOf(s.parent_id) === root.span_id)).toBe(true);
  expect(trace.spans.filter((s) => s.kind === 'llm')).toHaveLength(2);
  expect(trace.usage).toMatchObject({ input_tokens: 100, output_tokens: 20 });
}

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

describe('an OpenTelemetry-instrumented agent through tracegate run', () => {
  for (const protocol of ['proto', 'json'] as const) {
    it(`command adapter: its OTLP/HTTP ${protocol} spans are in its trial's trace, and the suite's checks pass on them`, async () => {
      const t = suite();
      const run = await runCli(['run', t.suite, '--agent-cmd', `node tests/fixtures/otelAgent.mjs ${protocol}`, '--out', t.out, '--no-html'], { env: offline });
      expect(run.stderr).not.toMatch(/\berror\b/i);
      const { task, trace } = result(t.out);
      expect(task.status).toBe('passed');
      expectAgentSpans(trace);
    });
  }

  it('without the exported spans the same suite fails (the checks passed because of them)', async () => {
    const t = suite();
    writeFileSync(path.join(path.dirname(t.suite), 'plain.mjs'), "process.stdout.write('README.md is a demo.\\n');\n");
    await runCli(['run', t.suite, '--agent-cmd', `node ${path.join(path.dirname(t.suite), 'plain.mjs')}`, '--out', t.out, '--no-html'], { env: offline });
    const { task, trace } = result(t.out);
    expect(task.status).toBe('failed');
    expect(toolSpans(trace)).toHaveLength(0);
  });

  it('HTTP adapter: a service exports under the traceparent header to the endpoint in its input', async () => {
    const seen: Array<{ traceparent: string; input: { trace_id: string; traceparent: string; otlp_endpoint: string } }> = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', async () => {
        const input = JSON.parse(body) as { trace_id: string; traceparent: string; otlp_endpoint: string };
        const traceparent = String(req.headers['traceparent']);
        seen.push({ traceparent, input });
        const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${input.otlp_endpoint}/v1/traces` }) })] });
        const tracer = provider.getTracer('http-agent');
        const [, traceId, spanId] = traceparent.split('-');
        const parent = otelTrace.setSpanContext(ROOT_CONTEXT, { traceId: traceId!, spanId: spanId!, traceFlags: 1, isRemote: true });
        const failed = tracer.startSpan('execute_tool read_file', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.id': 'h1' } }, parent);
        failed.recordException(Object.assign(new Error('ENOENT: no such file or directory, open README2.md'), { name: 'FileNotFoundError' }));
        failed.setStatus({ code: 2 });
        failed.end();
        await provider.shutdown(); // flushed before it answers, as a service should
        res.writeHead(200, { 'content-type': 'text/plain' }).end('README.md is a demo.');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
    const t = suite();
    await runCli(['run', t.suite, '--agent-url', url, '--out', t.out, '--no-html'], { env: offline });
    const { task, trace } = result(t.out);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.traceparent).toBe(seen[0]!.input.traceparent);
    expect(seen[0]!.traceparent.split('-')[1]).toBe(trace.trace_id);
    expect(seen[0]!.input.otlp_endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(toolSpans(trace).map((s) => [toolAttr(s).name, toolAttr(s).errorType])).toEqual([['read_file', 'FILE_NOT_FOUND']]);
    // expected_tools passes on the spans; the service never read README.md, so the tool list is all it did.
    expect(task.status).toBe('passed');
  });
});
