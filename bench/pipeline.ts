/**
 * npm run bench — speed and memory of the pipeline, as ratios against the ideal where there is one.
 *   1. judging: checks + classifier over synthetic traces (pure code; per-trace cost).
 *   2. orchestration: policy tasks that each sleep 0.2 s, at several concurrencies, against the
 *      ideal wall time (tasks × 0.2 s / concurrency).
 *   3. a 10,000-task report: HTML size, render time, and in headless Chromium the time until the
 *      table is ready and until a filter has been applied (the bar: under 2 s each).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runChecks } from '../src/judging/checks/checkRegistry.js';
import { classify } from '../src/judging/classify/classify.js';
import { buildReport, taskResult } from '../src/report/buildReport.js';
import { judgeTrial } from '../src/judging/judgeTrial.js';
import { renderHtml } from '../src/reporters/html/renderHtml.js';
import type { Task } from '../src/schema/task.js';
import type { Span, Trace } from '../src/schema/trace.js';
import { BENCH_CLI } from './benchCli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function syntheticTrace(i: number): Trace {
  const t0 = Date.UTC(2026, 0, 1);
  const iso = (ms: number) => new Date(t0 + ms).toISOString();
  const spans: Span[] = [{ span_id: 'root', parent_id: null, kind: 'agent', name: 'task', start: iso(0), end: iso(900), status: 'ok', attributes: {}, events: [] }];
  for (let step = 1; step <= 3; step++) {
    spans.push({ span_id: `l${step}`, parent_id: 'root', kind: 'llm', name: 'chat', start: iso(step * 200), end: iso(step * 200 + 120), status: 'ok', attributes: { step, 'llm.tool_calls': 1, 'llm.content_preview': 'thinking about the task '.repeat(4) }, events: [] });
    const failing = i % 7 === 0 && step === 2;
    spans.push({
      span_id: `t${step}`, parent_id: 'root', kind: 'tool', name: 'tool read_file', start: iso(step * 200 + 130), end: iso(step * 200 + 180), status: failing ? 'error' : 'ok',
      attributes: { step, 'tool.name': 'read_file', 'tool.call_id': `c${step}`, 'tool.arguments': JSON.stringify({ path: `src/file_${i}_${step}.ts` }), policy_decision: 'allow', risk_level: 'low', risk_reason: 'tool:read_file', approval_required: false, approved: null, executed: true, 'result.ok': !failing, error_type: failing ? 'FILE_NOT_FOUND' : null, recoverable: failing, 'result.preview': 'export const value = 1;\n'.repeat(20) },
      events: [],
    });
  }
  return {
    schema_version: 'trace/v1', trace_id: `trace${i}`, task_id: `task_${i}`, epoch: 0, started_at: iso(0), ended_at: iso(900),
    model: { provider: 'cassette', mode: 'scripted', model: 'bench', base_url: null },
    final_answer: { text: i % 5 === 0 ? 'not sure' : 'the answer is 42', exit_reason: 'completed' }, error: null,
    usage: { input_tokens: 3000, output_tokens: 200, total_tokens: 3200 }, spans,
  };
}

function syntheticTask(i: number): Task {
  return {
    id: `task_${i}`, source: { file: 'bench.jsonl', line: i + 1 }, prompt: 'find the answer', toolCall: null, workspace: '/tmp/ws', maxSteps: 10, timeoutMs: null,
    tags: [`area${i % 12}`, i % 3 === 0 ? 'slow' : 'fast'], checks: [{ type: 'contains', values: ['42'] }, { type: 'max_steps', max: 10 }, { type: 'error_types', types: ['FILE_NOT_FOUND'] }], fingerprint: `f${i}`,
  };
}

function benchJudging(): void {
  const count = 20_000;
  const traces = Array.from({ length: count }, (_, i) => syntheticTrace(i));
  const tasks = Array.from({ length: count }, (_, i) => syntheticTask(i));
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  let failed = 0;
  for (let i = 0; i < count; i++) {
    const checks = runChecks(traces[i]!, tasks[i]!.checks);
    if (checks.some((c) => !c.passed)) {
      classify(traces[i]!, checks, tasks[i]!);
      failed++;
    }
  }
  const ms = performance.now() - started;
  console.log(`1. judging ${count} traces (${failed} failed and classified): ${ms.toFixed(0)} ms, ${((ms * 1000) / count).toFixed(1)} µs per trace, ${Math.round(count / (ms / 1000)).toLocaleString()} traces/s; heap +${mb(process.memoryUsage().heapUsed - heapBefore)}`);
}

function benchOrchestration(): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-'));
  const tasks = 16;
  const sleep = 0.2;
  const suite = (seconds: number) => {
    const file = path.join(dir, `sleep${seconds}.jsonl`);
    writeFileSync(file, Array.from({ length: tasks }, (_, i) => JSON.stringify({ id: `sleep_${i}`, tool_call: { name: 'run_shell', arguments: { command: `sleep ${seconds}` } }, expected_policy: 'allow' })).join('\n'));
    return file;
  };
  const wall = (file: string, concurrency: number) => {
    const started = performance.now();
    const result = spawnSync(process.execPath, [BENCH_CLI, 'run', file, '-j', String(concurrency), '--out', path.join(dir, 'out'), '-q', '--no-html'], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`bench run failed: ${result.stderr}`);
    return (performance.now() - started) / 1000;
  };
  const working = suite(sleep);
  const single = path.join(dir, 'single.jsonl');
  writeFileSync(single, JSON.stringify({ id: 'noop', tool_call: { name: 'run_shell', arguments: { command: 'true' } }, expected_policy: 'allow' }));
  const startup = wall(single, 1);
  console.log(`2. orchestration: ${tasks} policy tasks that each run \`sleep ${sleep}\` in the sandbox (real processes, fresh workspace copies)`);
  console.log(`   CLI start-up, one no-op task and the reports: ${startup.toFixed(2)} s`);
  for (const concurrency of [1, 4, 8]) {
    const seconds = wall(working, concurrency);
    const ideal = startup + Math.ceil(tasks / concurrency) * sleep;
    const perTask = ((seconds - ideal) / tasks) * concurrency;
    console.log(`   -j ${concurrency}: ${seconds.toFixed(2)} s wall against an ideal ${ideal.toFixed(2)} s (start-up + ${Math.ceil(tasks / concurrency)} rounds of ${sleep} s): ratio ${(seconds / ideal).toFixed(2)}, about ${(perTask * 1000).toFixed(0)} ms of overhead per task and slot`);
  }
  rmSync(dir, { recursive: true, force: true });
}

async function benchLargeReport(count: number, label: string, barMs: number): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-report-'));
  mkdirSync(path.join(dir, 'traces'));
  const rows = [];
  for (let i = 0; i < count; i++) {
    const trace = syntheticTrace(i);
    const file = `traces/task_${i}.e0.json`;
    writeFileSync(path.join(dir, file), JSON.stringify(trace));
    rows.push(taskResult(syntheticTask(i), [judgeTrial(syntheticTask(i), 0, trace, null, 900, file)]));
  }
  const report = buildReport(
    {
      id: 'bench', started_at: new Date().toISOString(), ended_at: new Date().toISOString(), duration_ms: 1, tracegate_version: 'bench',
      suites: [{ path: 'bench.jsonl', tasks: count, sha256: 'x' }], adapter: 'harness', model: { provider: 'cassette', mode: 'scripted', model: 'bench', base_url: null },
      scripted: true, variant: null, policy: 'default', sandbox: 'process', epochs: 1, concurrency: 1, shard: null, interrupted: false,
    },
    rows,
  );
  const started = performance.now();
  const html = await renderHtml(report, { traceRoot: dir });
  const renderMs = performance.now() - started;
  const file = path.join(dir, 'report.html');
  writeFileSync(file, html);
  if (process.env['KEEP_BENCH_REPORT']) console.log(`   kept ${file}`);
  console.log(`${label}. a ${count.toLocaleString()}-task report: rendered in ${renderMs.toFixed(0)} ms, ${mb(statSync(file).size)} (traces embedded compactly, parsed only when opened)`);

  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (!chromium) {
    console.log('   Chromium is not installed: the in-browser timings are skipped (apt-get install chromium)');
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  const { chromium: launcher } = await import('playwright-core');
  const browser = await launcher.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const page = await browser.newPage();
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 120_000 });
  await page.waitForFunction(() => (window as unknown as { __tracegate?: { ready: boolean } }).__tracegate?.ready === true, null, { timeout: 60_000 });
  // The page's own clock (ms since navigation): when the table was usable, and when loading ended.
  const timing = await page.evaluate(() => ({
    ...(window as unknown as { __tracegate: { timings: { start: number; parsed: number; table: number } } }).__tracegate.timings,
    loaded: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
  }));
  const readyMs = timing.table;
  const filterMs = await page.evaluate(() => {
    const input = document.getElementById('filter-text') as HTMLInputElement;
    const t0 = performance.now();
    input.value = 'task_99';
    input.dispatchEvent(new Event('input'));
    void document.body.offsetHeight; // force layout so the time includes it
    return performance.now() - t0;
  });
  const shown = await page.locator('#task-count').textContent();
  const openMs = await page.evaluate(async () => {
    const t0 = performance.now();
    (document.querySelector('#task-rows tr') as HTMLElement).click();
    while (!document.querySelector('#detail .timeline')) await new Promise((r) => setTimeout(r, 1));
    return performance.now() - t0;
  });
  const heap = await page.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0);
  await browser.close();
  if (process.env['KEEP_BENCH_REPORT']) return;
  console.log(`   in headless Chromium: table ready ${readyMs.toFixed(0)} ms after navigation (bar: ${barMs} ms; ratio ${(readyMs / barMs).toFixed(2)}; viewer script started at ${timing.start.toFixed(0)} ms, its data parsed by ${timing.parsed.toFixed(0)} ms); the whole page, every trace block parsed, ${timing.loaded.toFixed(0)} ms; text filter over ${count.toLocaleString()} rows ${filterMs.toFixed(0)} ms ("${shown}"), a trace opened in ${openMs.toFixed(0)} ms; JS heap ${heap ? mb(heap) : 'n/a'}`);
}

console.log(`tracegate benchmark on ${process.platform} ${process.arch}, Node ${process.version}\n`);
const only = process.env['BENCH_ONLY'];
if (!only || only === 'judging') benchJudging();
if (!only || only === 'orchestration') benchOrchestration();
if (!only || only === 'report') await benchLargeReport(10_000, '3', 2000);
if (!only || only === 'report' || only === 'report100k') await benchLargeReport(100_000, '3b', 3000);
