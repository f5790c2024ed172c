import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startOtlpReceiver } from '../../src/capture/otlpReceiver.js';
import { toolSpans, type Trace } from '../../src/schema/trace.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { TraceBuilder } from '../helpers/traceBuilder.js';

/** Traces written by someone else: `replay` prints them, `export` sends them on. */
function writeTrace(dir: string, name: string, trace: unknown): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(trace));
  return file;
}

describe('tracegate replay of a hostile trace', () => {
  it('shows terminal escapes, carriage returns and bidi overrides as visible \\u{…} text, never raw', async () => {
    const trace = new TraceBuilder('x\u001b]0;PWNED\u0007').llm().tool('read\u001b[2Jfile', { p: '\u001b[31mred' }).final('ok\u001b[1A\u001b[2K\rPASS \u202eevil\u202c').build();
    const result = await runCli(['replay', writeTrace(tempDir(), 'esc.e0.json', trace)]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u001b\u0007\r\u202e\u202c]/);
    expect(result.stdout).toContain('task x\\u{1b}]0;PWNED\\u{7}');
    expect(result.stdout).toContain('tool read\\u{1b}[2Jfile');
    expect(result.stdout).toContain('ok\\u{1b}[1A\\u{1b}[2K\\u{d}PASS \\u{202e}evil\\u{202c}');
  });

  it('tells a foreign trace redacted: a key in its answer or tool arguments is not printed', async () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD';
    const trace = new TraceBuilder('leaky').llm().tool('run_shell', { command: `curl -H "Authorization: Bearer ${key}" x` }).final(`the key is ${key}`).build();
    const result = await runCli(['replay', writeTrace(tempDir(), 'leaky.e0.json', trace)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('the key is [REDACTED:');
    expect(result.stdout).not.toContain(key);
  });

  it('score lists an unmatched trace whose task id holds terminal escapes as visible text', async () => {
    const dir = tempDir();
    writeTrace(dir, 'esc.e0.json', new TraceBuilder('x\u001b]0;PWNED\u0007').llm().final('ok').build());
    const result = await runCli(['score', 'suites/demo.jsonl', '--traces', dir, '--out', tempDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('(task_id x\\u{1b}]0;PWNED\\u{7})');
    expect(result.stderr).not.toMatch(/[\u001b\u0007]/);
  });

  it('diff prints a hostile baseline\'s task ids and answers as visible text (table, notes), never raw escapes', async () => {
    const dir = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--cassettes', 'suites/demo/cassettes', '--out', path.join(dir, 'run'), '--no-html', '-q']);
    expect([0, 1]).toContain(run.code);
    const baseline = JSON.parse(readFileSync(path.join(dir, 'run', 'report.json'), 'utf8')) as { tasks: Array<{ id: string; status: string; answer_preview: string | null }> };
    baseline.tasks.push({ ...baseline.tasks[0]!, id: 'gone\u001b]0;PWNED\u0007' });
    baseline.tasks[0]!.status = baseline.tasks[0]!.status === 'passed' ? 'failed' : 'passed';
    const file = path.join(dir, 'baseline.json');
    writeFileSync(file, JSON.stringify(baseline));
    const result = await runCli(['diff', path.join(dir, 'run', 'report.json'), file, '--out', path.join(dir, 'diffed')]);
    expect(result.stdout).toContain('gone\\u{1b}]0;PWNED\\u{7}');
    expect(result.stdout).not.toMatch(/[\u0007]|\u001b\]/);
  });

  it('tells a trace of 100k tool spans, and clips a 5 MB final answer, saying how much is left out', async () => {
    const builder = new TraceBuilder().llm();
    for (let i = 0; i < 100_000; i++) builder.tool('list_files', { i });
    const trace = builder.final('A'.repeat(5_000_000)).build();
    trace.spans.forEach((s, i) => (s.attributes = { ...s.attributes, step: i }));
    const result = await runCli(['replay', writeTrace(tempDir(), 'big.e0.json', trace)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('step 99999\n');
    expect(result.stdout).toMatch(/final answer \(completed\): A{20000}… \(4980000 more characters\)\n$/);
  }, 120_000);

  it('an unreadable start or end time is "duration unknown", not NaN', async () => {
    const trace = { ...new TraceBuilder().llm().final('done').build(), started_at: 'yesterday', ended_at: 'Infinity' };
    const result = await runCli(['replay', writeTrace(tempDir(), 'times.e0.json', trace)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('yesterday → Infinity (duration unknown)');
  });
});

describe('tracegate export of a trace with broken ids, times and numbers', () => {
  /** Four tool spans sharing one id, a span that is its own parent, two that are each other's. */
  function brokenTrace(): Trace {
    const trace = new TraceBuilder('broken').llm().tool('a', {}).tool('b', {}).tool('c', {}).tool('d', {}).final('done').build();
    const [root, llm, a, b, c, d] = trace.spans as [Trace['spans'][number], ...Trace['spans']];
    for (const s of [a, b, c, d]) s!.span_id = 'same';
    llm!.parent_id = llm!.span_id; // its own parent
    root.parent_id = 'loop2';
    root.span_id = 'loop1';
    a!.parent_id = 'loop1';
    trace.spans.push({ ...llm!, span_id: 'loop2', parent_id: 'loop1', attributes: { big: 1e300, wide: 2 ** 60, step: 1 } });
    llm!.start = '1969-12-31T23:59:59.000Z';
    llm!.end = '2600-01-01T00:00:00.000Z';
    return trace;
  }

  it('writes valid OTLP (unique hex span ids, no parent loops, fixed64 times, int64 strings) that re-imports with every tool call', async () => {
    const dir = tempDir();
    writeTrace(dir, 'broken.e0.json', brokenTrace());
    const otlp = path.join(tempDir(), 'out.jsonl');
    const exported = await runCli(['export', dir, '--otlp', otlp]);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const spans = JSON.parse(readFileSync(otlp, 'utf8')).resourceSpans[0].scopeSpans[0].spans as Array<Record<string, any>>;
    const ids = spans.map((s) => s['spanId'] as string);
    expect(new Set(ids).size).toBe(spans.length);
    expect(ids.every((id) => /^[0-9a-f]{16}$/.test(id))).toBe(true);
    const parent = new Map(spans.map((s) => [s['spanId'], s['parentSpanId'] as string | undefined]));
    for (const id of ids) {
      const seen = new Set<string>();
      for (let at: string | undefined = id; at !== undefined && parent.has(at); at = parent.get(at)) {
        expect(seen.has(at)).toBe(false);
        seen.add(at);
      }
    }
    for (const s of spans) for (const t of [s['startTimeUnixNano'], s['endTimeUnixNano']]) expect(BigInt(t) >= 0n && BigInt(t) < 2n ** 64n).toBe(true);
    const values = spans.flatMap((s) => (s['attributes'] as Array<{ key: string; value: Record<string, unknown> }>).map((a) => a.value));
    for (const v of values) if ('intValue' in v) expect(v['intValue']).toMatch(/^-?\d+$/);
    expect(values).toContainEqual({ doubleValue: 1e300 });

    const back = tempDir();
    expect((await runCli(['import', otlp, '--out', back])).code).toBe(0);
    const [file] = readdirSync(back);
    expect(toolSpans(JSON.parse(readFileSync(path.join(back, file!), 'utf8')) as Trace)).toHaveLength(4);
  });

  it('a trace of 4500 spans, sent in several requests, is joined by a real receiver into one trace with every tool call', async () => {
    const builder = new TraceBuilder('wide').llm();
    for (let i = 0; i < 4500; i++) builder.tool('list_files', { i });
    const dir = tempDir();
    writeTrace(dir, 'wide.e0.json', builder.final('done').build());
    const receiver = await startOtlpReceiver();
    try {
      const result = await runCli(['export', dir, '--otlp-endpoint', receiver.endpoint]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(receiver.traceIds()).toHaveLength(1);
      expect(receiver.spansFor(receiver.traceIds()[0]!).filter((s) => s.kind === 'tool')).toHaveLength(4500);
    } finally {
      await receiver.close();
    }
  });

  it('the same trace as protobuf reaches a real OTLP receiver with all four tool calls', async () => {
    const dir = tempDir();
    const trace = brokenTrace();
    writeTrace(dir, 'broken.e0.json', trace);
    const receiver = await startOtlpReceiver();
    try {
      const result = await runCli(['export', dir, '--otlp-endpoint', receiver.endpoint]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const [traceId] = receiver.traceIds();
      expect(receiver.spansFor(traceId!).filter((s) => s.kind === 'tool')).toHaveLength(4);
    } finally {
      await receiver.close();
    }
  });
});

describe('a report folder from someone else whose traces link outside it', () => {
  it('score and export refuse a trace file or a traces/ folder that links outside, without quoting what it points at', async () => {
    const outside = tempDir();
    writeFileSync(path.join(outside, 'secret.json'), 'root:x:0:0:TOP-SECRET');
    writeTrace(outside, 'elsewhere.e0.json', new TraceBuilder('elsewhere').llm().final('from outside').build());
    const report = tempDir();
    writeFileSync(path.join(report, 'report.json'), '{}');
    mkdirSync(path.join(report, 'traces'));
    symlinkSync(path.join(outside, 'secret.json'), path.join(report, 'traces', 'task_1.e0.json'));
    for (const args of [['export', report, '--otlp', path.join(tempDir(), 'x.jsonl')], ['score', 'suites/demo.jsonl', '--traces', report, '--out', tempDir()]]) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/traces[\\/]task_1\.e0\.json: a link to a file outside the folder/);
      expect(result.stderr).not.toContain('root:x');
    }
    const linkedFolder = tempDir();
    writeFileSync(path.join(linkedFolder, 'report.json'), '{}');
    symlinkSync(outside, path.join(linkedFolder, 'traces'));
    const result = await runCli(['export', linkedFolder, '--otlp', path.join(tempDir(), 'x.jsonl')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/traces: a link to a folder outside the report folder/);
  });
});
