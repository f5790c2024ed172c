import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../../src/capture/otlpReceiver.js';
import type { RunReport } from '../../src/schema/report.js';
import { toolAttr } from '../../src/schema/trace.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { FIXTURES, SAMPLES } from '../helpers/samples.js';
import { DEMO_FAILING, DEMO_TASKS } from '../helpers/demoSuite.js';

/** The cells of the table row whose first cell ends with `file`. */
function row(stdout: string, file: string): string[] {
  const line = stdout.split('\n').find((l) => l.includes(file));
  if (!line) throw new Error(`no row for ${file} in\n${stdout}`);
  return line.split('│').map((c) => c.trim()).filter(Boolean);
}

const readReport = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as RunReport;

describe('tracegate import', () => {
  it('reads every upstream sample (the folder glob, README included) with no exit 2, and the table counts match the files', async () => {
    const out = tempDir();
    const files = readdirSync(SAMPLES).map((f) => path.join(SAMPLES, f));
    const result = await runCli(['import', ...files, '--out', out]);
    expect(result.stderr).toMatch(/skipped .*README\.md: a notes file/);
    expect(result.code).toBe(0);
    // file, format, traces, model calls, tool calls, errors, final answer (counts derived in tests/unit/traceio/samples.test.ts)
    expect(row(result.stdout, 'inspect__log_message_deduplication.eval').slice(1, 7)).toEqual(['inspect-eval', '1', '6', '5', '0', 'yes']);
    expect(row(result.stdout, 'inspect__log_tool_call_error.json').slice(1, 7)).toEqual(['inspect-json', '1', '0', '11', '10', 'no']);
    expect(row(result.stdout, 'mini-swe-agent__local.traj.json').slice(1, 7)).toEqual(['mini-swe-agent', '1', '2', '2', '0', 'yes']);
    expect(row(result.stdout, 'otlp__opentelemetry-proto__trace.json').slice(1, 7)).toEqual(['otlp-json', '1', '0', '0', '0', 'no']);
    expect(row(result.stdout, 'sweagenttestrepo-1c2844.traj').slice(1, 7)).toEqual(['swe-agent', '1', '5', '5', '0', 'yes']);
    expect(row(result.stdout, 'inspect__log_tool_call_error.json').at(-1)).toMatch(/final answer/);
    expect(readdirSync(out).sort()).toEqual(['0.e0.json', '1.e3.json', 'mini-swe-agent__local.e0.json', 'otlp__opentelemetry-proto__trace.e0.json', 'swe-agent__6e44b9__sweagenttestrepo-1c2844.e0.json']);
  });

  it('a broken or unknown file is exit 2 naming the file and the reason, and nothing is written', async () => {
    const out = tempDir();
    const result = await runCli(['import', path.join(FIXTURES, 'openai-messages.json'), path.join(FIXTURES, 'broken-truncated.json'), path.join(FIXTURES, 'not-a-trace.json'), '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken-truncated\.json: not valid JSON/);
    expect(result.stderr).toMatch(/not-a-trace\.json: not a format tracegate imports/);
    expect(readdirSync(out)).toEqual([]);
    const missing = await runCli(['import', path.join(FIXTURES, 'nope.json'), '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json/);
  });

  it('a bad JSON Lines line is exit 2 naming file:line; two OTLP files holding parts of one trace are written as one trace', async () => {
    const out = tempDir();
    const bad = await runCli(['import', path.join(FIXTURES, 'otlp', 'bad-line4.jsonl'), '--out', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad-line4\.jsonl:4: not valid JSON/);
    const split = await runCli(['import', path.join(FIXTURES, 'otlp', 'split-part1.json'), path.join(FIXTURES, 'otlp', 'split-part2.json'), '--out', out]);
    expect(split.code).toBe(0);
    expect(readdirSync(out)).toEqual(['split-part1.e0.json']);
    const trace = JSON.parse(readFileSync(path.join(out, 'split-part1.e0.json'), 'utf8')) as { spans: Array<{ kind: string }> };
    expect(trace.spans.filter((s) => s.kind === 'llm')).toHaveLength(3);
  });

  it('spans exported twice count once: the same file named twice, or a part repeated in another file, gives the trace of one copy', async () => {
    const once = tempDir();
    expect((await runCli(['import', path.join(FIXTURES, 'genai-otlp.jsonl'), '--out', once])).code).toBe(0);
    const twice = tempDir();
    const copy = path.join(tempDir(), 'copy.jsonl');
    writeFileSync(copy, readFileSync(path.join(FIXTURES, 'genai-otlp.jsonl')));
    const result = await runCli(['import', path.join(FIXTURES, 'genai-otlp.jsonl'), path.join(FIXTURES, 'genai-otlp.jsonl'), copy, '--out', twice]);
    expect(result.code, result.stderr).toBe(0);
    const spans = (dir: string) =>
      readdirSync(dir).flatMap((f) => (JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { spans: Array<{ span_id: string; kind: string }> }).spans.filter((s) => s.kind !== 'agent'));
    const ids = spans(twice).map((s) => s.span_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(spans(once).map((s) => s.span_id).sort());
  });
});

describe('tracegate score', () => {
  it("judges the Inspect sample's tool errors with a suite: the full report set, passed, and the unmatched task listed", async () => {
    const traces = tempDir();
    expect((await runCli(['import', path.join(SAMPLES, 'inspect__log_tool_call_error.json'), '--out', traces])).code).toBe(0);
    writeFileSync(path.join(traces, 'stray.e0.json'), readFileSync(path.join(traces, '1.e3.json'), 'utf8').replace('"task_id": "1"', '"task_id": "stray"'));
    const out = tempDir();
    const result = await runCli(['score', path.join(FIXTURES, 'inspect-tool-errors.jsonl'), '--traces', traces, '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/unmatched trace: .*stray\.e0\.json \(task_id stray\)/);
    expect(result.stderr).toMatch(/task without a trace: never_imported_001/);
    for (const f of ['report.json', 'report.html', 'junit.xml', 'summary.md', 'traces/1.e3.json']) expect(existsSync(path.join(out, f)), f).toBe(true);
    const report = readReport(out);
    expect(report.run.model.mode).toBe('imported');
    expect(report.tasks.map((t) => [t.id, t.status])).toEqual([['1', 'passed']]);
    expect(report.tasks[0]!.checks.map((c) => [c.type, c.passed])).toEqual([
      ['error_types', true],
      ['tool_called', true],
      ['max_steps', true],
    ]);
    expect(report.summary).toMatchObject({ tool_calls: 11, tool_errors: 10 });
    expect(report.gate?.passed).toBe(true);
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(/IMPORTED/);
  });

  it('Claude Code, Codex and OpenHands logs and a zstd Inspect .eval (the conformance corpus) import and score: verdicts from their own steps', async () => {
    const corpus = path.join(ROOT, 'tests/fixtures/conformance');
    const traces = tempDir();
    const files = ['claude-code/codemie-4c2ddfdc.jsonl', 'codex/rollout-2026-01-02T19-00-00-019b7f95.jsonl', 'openhands/wrong_initial_state.json', 'inspect-eval/log_read_sample.zstd.eval'];
    const imported = await runCli(['import', ...files.map((f) => path.join(corpus, f)), '--out', traces]);
    expect(imported.code).toBe(0);
    expect(files.map((f) => row(imported.stdout, path.basename(f)).slice(1, 7))).toEqual([
      ['claude-code', '1', '7', '6', '0', 'yes'],
      ['codex', '1', '3', '3', '1', 'no'],
      ['openhands', '1', '4', '3', '0', 'yes'],
      ['inspect-eval', '1', '1', '0', '0', 'yes'],
    ]);
    const out = tempDir();
    const scored = await runCli(['score', path.join(FIXTURES, 'coding-agent-logs.jsonl'), '--traces', traces, '--out', out]);
    expect(scored.stderr).toMatch(/scored 4 traces of 4 tasks; 0 unmatched/);
    expect(scored.code).toBe(1); // the Codex task allows 2 steps and the rollout took 3: the gate fails on it alone
    const report = readReport(out);
    expect(Object.fromEntries(report.tasks.map((t) => [t.id, [t.status, t.checks.filter((c) => !c.passed).map((c) => c.type)]]))).toEqual({
      '4c2ddfdc-b619-4525-8d03-1950fb1b0257': ['passed', []],
      '019b7f95-0000-7000-0000-000000000001': ['failed', ['max_steps']],
      wrong_initial_state: ['passed', []],
      '1': ['passed', []],
    });
    expect(report.summary).toMatchObject({ tool_calls: 12, tool_errors: 1 });
  });

  it('a trace folder with nothing for the suite is exit 2', async () => {
    const traces = tempDir();
    await runCli(['import', path.join(FIXTURES, 'openai-messages.json'), '--out', traces]);
    const result = await runCli(['score', path.join(FIXTURES, 'inspect-tool-errors.jsonl'), '--traces', traces, '--out', tempDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no trace in .* answers a task/);
  });
});

describe('export → import round trip on the demo', () => {
  let demo: string;
  beforeAll(async () => {
    demo = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--out', demo, '-q']);
    expect([0, 1]).toContain(run.code);
  });

  it('gives every check the same verdict on every trace of the demo', async () => {
    const otlp = path.join(tempDir(), 'demo.otlp.jsonl');
    const exported = await runCli(['export', demo, '--otlp', otlp]);
    expect(exported.code).toBe(0);
    const lines = readFileSync(otlp, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const original = readReport(demo);
    expect(lines).toHaveLength(original.tasks.length);
    const span = lines[0].resourceSpans[0].scopeSpans[0].spans[0];
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    const names = new Set(lines.flatMap((l) => l.resourceSpans[0].scopeSpans[0].spans.flatMap((s: { attributes: Array<{ key: string }> }) => s.attributes.map((a) => a.key))));
    for (const key of ['gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.tool.call.id', 'gen_ai.tool.call.arguments', 'gen_ai.usage.input_tokens']) expect(names).toContain(key);

    const traces = tempDir();
    expect((await runCli(['import', otlp, '--out', traces])).code).toBe(0);
    const out = tempDir();
    const scored = await runCli(['score', 'suites/demo.jsonl', '--traces', traces, '--out', out]);
    expect([0, 1]).toContain(scored.code);
    const again = readReport(out);
    const verdicts = (r: RunReport) =>
      Object.fromEntries(r.tasks.map((t) => [t.id, { status: t.status, reason: t.failure_reason, layer: t.failure_layer, checks: t.checks.map((c) => [c.type, c.passed, c.reason]) }]));
    expect(Object.keys(verdicts(again)).sort()).toEqual(Object.keys(verdicts(original)).sort());
    expect(verdicts(again)).toEqual(verdicts(original));
    expect(again.summary).toMatchObject({ passed: original.summary.passed, failed: original.summary.failed, tool_calls: original.summary.tool_calls, tool_errors: original.summary.tool_errors });
  });

  it('re-judges a stored run from its report folder with the same verdicts', async () => {
    const out = tempDir();
    const scored = await runCli(['score', 'suites/demo.jsonl', '--traces', demo, '--out', out, '--baseline', 'baselines/demo.json']);
    expect(scored.code).toBe(0);
    const again = readReport(out);
    const original = readReport(demo);
    expect(again.tasks.map((t) => [t.id, t.status, t.failure_reason])).toEqual(original.tasks.map((t) => [t.id, t.status, t.failure_reason]));
    expect(again.diff?.tasks.filter((t) => t.change === 'regressed')).toEqual([]);
    expect(again.run.model.mode).toBe('scripted'); // the traces' own model, still labelled as scripted
  });

  describe('to an OTLP/HTTP endpoint', () => {
    let receiver: OtlpReceiver;
    beforeAll(async () => {
      receiver = await startOtlpReceiver();
    });
    afterAll(async () => {
      await receiver.close();
    });

    for (const protocol of ['http/protobuf', 'http/json']) {
      it(`sends ${protocol} with a header from a named environment variable`, async () => {
        const before = receiver.traceIds().length;
        const result = await runCli(['export', demo, '--otlp-endpoint', receiver.endpoint, '--protocol', protocol, '--header', 'Authorization=TG_TEST_AUTH'], { env: { TG_TEST_AUTH: 'Basic cGs6c2s=' } });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(new RegExp(`sent ${DEMO_TASKS} traces to http://127\\.0\\.0\\.1:\\d+/v1/traces`));
        const original = readReport(demo);
        if (before === 0) expect(receiver.traceIds()).toHaveLength(original.tasks.length);
        const recovery = JSON.parse(readFileSync(path.join(demo, 'traces/missing_readme_recovery_001.e0.json'), 'utf8'));
        const spans = receiver.spansFor(recovery.trace_id);
        expect(spans.filter((s) => s.kind === 'tool').map((s) => toolAttr(s).errorType)).toContain('FILE_NOT_FOUND');
      });
    }

    it('the header value from the environment reaches the endpoint, never the command line', async () => {
      const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
      const server = createServer((req, res) => {
        seen.push({ url: req.url ?? '', headers: req.headers });
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const { port } = server.address() as AddressInfo;
        const result = await runCli(['export', demo, '--otlp-endpoint', `http://127.0.0.1:${port}/api/public/otel`, '--header', 'Authorization=TG_TEST_AUTH'], { env: { TG_TEST_AUTH: 'Basic cGstbGY6c2stbGY=' } });
        expect(result.code).toBe(0);
        expect(seen.length).toBe(1); // every demo trace in one batch
        expect(seen[0]).toMatchObject({ url: '/api/public/otel/v1/traces', headers: { authorization: 'Basic cGstbGY6c2stbGY=', 'content-type': 'application/x-protobuf' } });
      } finally {
        server.close();
      }
    });

    it('a header whose variable is not set is exit 2', async () => {
      const result = await runCli(['export', demo, '--otlp-endpoint', receiver.endpoint, '--header', 'Authorization=TG_NOT_SET_ANYWHERE']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/TG_NOT_SET_ANYWHERE is not set/);
    });
  });
});
