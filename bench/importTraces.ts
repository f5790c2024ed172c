/**
 * npm run bench (part 4): how fast does `tracegate import` read a large OTLP file? A 10,000-trace
 * OTLP/JSON Lines file (GenAI spans: an agent, three model calls, two tool calls, one of them
 * failed, per trace) is generated, parsed in-process, then imported by the real CLI (which also
 * writes 10,000 trace files). Target: under 10 s on this machine.
 *
 * Part 5, memory: the CLI's whole-process peak RSS (`/usr/bin/time -v`'s maximum resident set, or
 * VmHWM read by an exit hook in the child where GNU time is missing) importing a 200 MB OTLP/JSON
 * Lines file (streamed line by line), a 200 MB single trace (one OTLP/JSON request, streamed span by
 * span), and a 2 GB file (sparse, so the disk is not filled) that must be refused before it is read.
 * Target: ≤ 300 MB each. IMPORT_MEMORY_MB changes the 200; IMPORT_MEMORY=0 skips part 5.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createRedactor } from '../src/schema/redact.js';
import { parseTraces } from '../src/traceio/formats.js';
import { writeTraces } from '../src/traceio/traceFiles.js';
import { BENCH_CLI } from './benchCli.js';

const COUNT = Number(process.env['IMPORT_TRACES'] ?? 10_000);
const TARGET_MS = 10_000;
const BIN = BENCH_CLI;

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const kv = (key: string, value: string | number) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } });

function request(i: number): string {
  const traceId = hex(i + 1, 32);
  const t0 = 1_700_000_000_000 + i * 10_000;
  const ns = (ms: number) => `${t0 + ms}000000`;
  const span = (n: number, name: string, from: number, to: number, attributes: unknown[], extra: object = {}) => ({
    traceId,
    spanId: hex(i * 8 + n + 1, 16),
    ...(n === 0 ? {} : { parentSpanId: hex(i * 8 + 1, 16) }),
    name,
    kind: 1,
    startTimeUnixNano: ns(from),
    endTimeUnixNano: ns(to),
    attributes,
    ...extra,
  });
  const chat = (n: number, from: number, calls: number, text: string | null) =>
    span(n, 'chat gpt-4o', from, from + 400, [
      kv('gen_ai.operation.name', 'chat'),
      kv('gen_ai.request.model', 'gpt-4o'),
      kv('gen_ai.usage.input_tokens', 300 + n),
      kv('gen_ai.usage.output_tokens', 20),
      kv('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: text ? [{ type: 'text', content: text }] : Array.from({ length: calls }, () => ({ type: 'tool_call', name: 'read_file' })) }])),
    ]);
  const tool = (n: number, from: number, ok: boolean) =>
    span(n, 'execute_tool read_file', from, from + 50, [kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.name', 'read_file'), kv('gen_ai.tool.call.id', `call_${n}`), kv('gen_ai.tool.call.arguments', `{"path":"file_${i}.md"}`)], ok ? {} : { status: { code: 2, message: 'ENOENT' }, events: [{ name: 'exception', timeUnixNano: ns(from + 50), attributes: [kv('exception.type', 'FileNotFoundError')] }] });
  const spans = [
    span(0, 'invoke_agent', 0, 3000, [kv('gen_ai.operation.name', 'invoke_agent'), kv('tracegate.task_id', `task_${i % 500}`), kv('tracegate.epoch', Math.floor(i / 500))]),
    chat(1, 100, 1, null),
    tool(2, 600, false),
    chat(3, 700, 1, null),
    tool(4, 1200, true),
    chat(5, 1300, 0, `summary ${i}`),
  ];
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [kv('service.name', 'bench-agent')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] });
}

const MEMORY_TARGET_MB = 300;
const INPUT_MB = Number(process.env['IMPORT_MEMORY_MB'] ?? 200);

/** Writes `next()` pieces to `file` until it holds `bytes`; returns how many pieces. */
function fill(file: string, bytes: number, head: string, next: (i: number) => string, tail: string): number {
  const fd = openSync(file, 'w');
  let size = writeSync(fd, head);
  let i = 0;
  while (size < bytes) size += writeSync(fd, next(i++));
  writeSync(fd, tail);
  closeSync(fd);
  return i;
}

const TIME = '/usr/bin/time';

/**
 * The CLI importing `file`: its exit code, peak RSS in MB and wall time. The peak is the whole
 * process's maximum resident set as `/usr/bin/time -v` reports it (GNU time) when it is installed,
 * else the child's own VmHWM read by an exit hook.
 */
function importPeak(file: string, out: string): { status: number | null; peakMb: number; ms: number; stderr: string; by: string } {
  const hook = `data:text/javascript,${encodeURIComponent("import { readFileSync } from 'node:fs'; process.on('exit', () => { const m = /VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8')); process.stderr.write(`\\nBENCH_PEAK_KB ${m ? m[1] : -1}\\n`); });")}`;
  const args = ['--import', hook, BIN, 'import', file, '--out', out];
  const timed = existsSync(TIME);
  const t0 = performance.now();
  const cli = timed ? spawnSync(TIME, ['-v', process.execPath, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }) : spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t0;
  const timeKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(cli.stderr)?.[1] ?? NaN);
  const hookKb = Number(/BENCH_PEAK_KB (-?\d+)/.exec(cli.stderr)?.[1] ?? -1);
  const exit = timed ? Number(/Exit status: (\d+)/.exec(cli.stderr)?.[1] ?? cli.status) : cli.status;
  return Number.isFinite(timeKb)
    ? { status: exit, peakMb: timeKb / 1024, ms, stderr: cli.stderr, by: '/usr/bin/time -v' }
    : { status: cli.status, peakMb: hookKb / 1024, ms, stderr: cli.stderr, by: 'VmHWM' };
}

function memoryPart(dir: string): void {
  const bytes = INPUT_MB * 1024 * 1024;
  const verdict = (mb: number) => (mb <= MEMORY_TARGET_MB ? 'met' : 'MISSED');
  console.log(`5. peak memory of \`tracegate import\` (whole process, max RSS by ${existsSync(TIME) ? '/usr/bin/time -v' : 'VmHWM'}; target ≤ ${MEMORY_TARGET_MB} MB)`);

  const lines = path.join(dir, 'big.otlp.jsonl');
  const count = fill(lines, bytes, '', (i) => request(i) + '\n', '');
  let r = importPeak(lines, path.join(dir, 'out-lines'));
  if (r.status !== 0) throw new Error(`import of the JSON Lines file exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  console.log(`   ${INPUT_MB} MB OTLP/JSON Lines (${count.toLocaleString()} traces): peak ${r.peakMb.toFixed(0)} MB, ${(r.ms / 1000).toFixed(1)} s (${verdict(r.peakMb)})`);
  rmSync(lines);
  rmSync(path.join(dir, 'out-lines'), { recursive: true, force: true });

  // One trace: an agent span, then model calls (each with its prompt) and tool calls (each with a result), in one request.
  const single = path.join(dir, 'big-single.otlp.json');
  const traceId = hex(7, 32);
  const ns = (ms: number) => `${1_700_000_000_000 + ms}000000`;
  const prompt = 'user: please read the files and summarise them. '.repeat(40);
  const spans = fill(
    single,
    bytes,
    `{"resourceSpans":[{"resource":{"attributes":[${JSON.stringify(kv('service.name', 'bench-agent'))}]},"scopeSpans":[{"scope":{"name":"bench"},"spans":[` +
      JSON.stringify({ traceId, spanId: hex(1, 16), name: 'invoke_agent', startTimeUnixNano: ns(0), endTimeUnixNano: ns(1e9), attributes: [kv('gen_ai.operation.name', 'invoke_agent'), kv('tracegate.task_id', 'big_task')] }),
    (i) => {
      const base = { traceId, spanId: hex(i + 2, 16), parentSpanId: hex(1, 16), startTimeUnixNano: ns(i * 10), endTimeUnixNano: ns(i * 10 + 5) };
      const span = i % 2 === 0
        ? { ...base, name: 'chat gpt-4o', attributes: [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'gpt-4o'), kv('gen_ai.usage.input_tokens', 900), kv('gen_ai.usage.output_tokens', 20), kv('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: prompt + i }] }])), kv('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', name: 'read_file', id: `c${i}` }] }]))] }
        : { ...base, name: 'execute_tool read_file', attributes: [kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.name', 'read_file'), kv('gen_ai.tool.call.id', `c${i - 1}`), kv('gen_ai.tool.call.result', 'contents of the file '.repeat(60))] };
      return ',' + JSON.stringify(span);
    },
    ']}]}]}\n',
  );
  r = importPeak(single, path.join(dir, 'out-single'));
  if (r.status !== 0) throw new Error(`import of the single trace exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  console.log(`   ${INPUT_MB} MB single trace (${(spans + 1).toLocaleString()} spans in one request): peak ${r.peakMb.toFixed(0)} MB, ${(r.ms / 1000).toFixed(1)} s (${verdict(r.peakMb)})`);
  if (!process.env.KEEP_BENCH_IMPORT) rmSync(single);
  rmSync(path.join(dir, 'out-single'), { recursive: true, force: true });

  const huge = path.join(dir, 'huge.otlp.jsonl');
  writeFileSync(huge, request(0) + '\n');
  truncateSync(huge, 2 * 1024 * 1024 * 1024);
  r = importPeak(huge, path.join(dir, 'out-huge'));
  const refused = r.status === 2 && /more than the \d+ an import reads/.test(r.stderr);
  console.log(`   2 GB file: ${refused ? 'refused before reading (exit 2)' : `exit ${r.status}, NOT refused`}, peak ${r.peakMb.toFixed(0)} MB, ${(r.ms / 1000).toFixed(1)} s (${refused ? verdict(r.peakMb) : 'MISSED'})`);
  rmSync(huge);
}

const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-import-'));
try {
  const file = path.join(dir, 'traces.otlp.jsonl');
  writeFileSync(file, Array.from({ length: COUNT }, (_, i) => request(i)).join('\n') + '\n');
  const mb = (statSync(file).size / 1024 / 1024).toFixed(1);

  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const parsed = parseTraces(readFileSync(file), file);
  const parseMs = performance.now() - t0;
  if (parsed.traces.length !== COUNT) throw new Error(`parsed ${parsed.traces.length} traces, expected ${COUNT}`);
  writeTraces(parsed.traces, path.join(dir, 'in-process'), createRedactor().deep);
  const fullMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;

  const t1 = performance.now();
  // The child reports its own CPU time on exit: on a shared machine, wall time also measures the neighbours.
  const cpuHook = `data:text/javascript,${encodeURIComponent("process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write(`\\nBENCH_CPU_MS ${(u.user + u.system) / 1000}\\n`); });")}`;
  const cli = spawnSync(process.execPath, ['--import', cpuHook, BIN, 'import', file, '--out', path.join(dir, 'out')], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const cliMs = performance.now() - t1;
  if (cli.status !== 0) throw new Error(`tracegate import exited ${cli.status}: ${cli.stderr}`);
  const cliCpuMs = Number(/BENCH_CPU_MS (\d+(?:\.\d+)?)/.exec(cli.stderr)?.[1] ?? NaN);

  const rate = (ms: number) => Math.round(COUNT / (ms / 1000)).toLocaleString();
  console.log(`4. importing ${COUNT.toLocaleString()} traces from one OTLP/JSON Lines file (${mb} MB, 6 GenAI spans each)`);
  console.log(`   in-process: parse and convert ${parseMs.toFixed(0)} ms (${rate(parseMs)} traces/s); with redaction and writing the files ${fullMs.toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU (${rate(cpuMs)} traces per CPU-second)`);
  console.log(`   \`tracegate import\` end to end (start-up, parse, redact, write ${COUNT.toLocaleString()} files, table): ${cliMs.toFixed(0)} ms wall, ${cliCpuMs.toFixed(0)} ms CPU, ${rate(cliMs)} traces/s (target < ${TARGET_MS / 1000} s: ${cliMs < TARGET_MS ? 'met' : 'MISSED'}; load average ${loadavg()[0]!.toFixed(1)} on this machine while it ran)`);

  if (process.env['IMPORT_MEMORY'] !== '0') memoryPart(dir);
} finally {
  if (!process.env.KEEP_BENCH_IMPORT) rmSync(dir, { recursive: true, force: true }); else console.log(dir);
}
