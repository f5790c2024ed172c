#!/usr/bin/env node
// How often a configured judge grades like a person: runs a labelled set (default
// examples/judge-accuracy/labelled.jsonl, a suite whose tasks carry a rubric check, a scripted answer
// in metadata.answer and a person's verdict in metadata.label) through `tracegate run` with the
// judge flags given here, then compares each rubric verdict with its label.
//
//   npm run judge:accuracy -- --judge-model gpt-4o-mini [--judge-base-url URL] [--judge-record DIR]
//   npm run judge:accuracy -- --judge-cassettes DIR            (replays a recorded measurement)
//
// Exit codes: 0 measured (and at least --min-accuracy), 1 below --min-accuracy, 2 bad input,
// 3 the judge failed on some items (the accuracy of the rest is still printed).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const JUDGE_FLAGS = ['judge-model', 'judge-base-url', 'judge-api-key-env', 'judge-record', 'judge-cassettes'];

function fail(message, code = 2) {
  process.stderr.write(`judge-accuracy: ${message}\n`);
  process.exit(code);
}

let args;
try {
  args = parseArgs({
    options: {
      set: { type: 'string', default: path.join(ROOT, 'examples/judge-accuracy/labelled.jsonl') },
      out: { type: 'string', default: 'reports/judge-accuracy' },
      'min-accuracy': { type: 'string' },
      ...Object.fromEntries(JUDGE_FLAGS.map((f) => [f, { type: 'string' }])),
    },
  }).values;
} catch (error) {
  fail(`${error.message} (options: --set FILE --out DIR --min-accuracy 0..1 ${JUDGE_FLAGS.map((f) => `--${f}`).join(' ')})`);
}
const minAccuracy = args['min-accuracy'] === undefined ? null : Number(args['min-accuracy']);
if (minAccuracy !== null && !(minAccuracy >= 0 && minAccuracy <= 1)) fail(`--min-accuracy ${args['min-accuracy']}: a number from 0 to 1 is expected`);
if (!args['judge-model'] && !args['judge-cassettes']) fail('pass --judge-model NAME (with --judge-base-url URL for a local endpoint) or --judge-cassettes DIR');

/** The set's labels by task id; each task's scripted answer becomes a script cassette. */
function readSet(file, answersDir) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(`${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  }
  const labels = new Map();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${file}:${i + 1}`;
    let row;
    try {
      row = JSON.parse(line);
    } catch (error) {
      fail(`${where}: not JSON: ${error.message}`);
    }
    if (row.suite) return;
    const meta = row.metadata ?? {};
    if (typeof meta.answer !== 'string') fail(`${where}: field metadata.answer: the scripted answer (a string) is required`);
    if (meta.label !== 'pass' && meta.label !== 'fail') fail(`${where}: field metadata.label: "pass" or "fail" is required`);
    if (!Array.isArray(row.checks) || !row.checks.some((c) => c?.type === 'rubric')) fail(`${where}: field checks: a rubric check is required`);
    labels.set(row.id, { label: meta.label, why: typeof meta.why === 'string' ? meta.why : '' });
    const cassette = { schema_version: 'cassette/v1', kind: 'script', task_id: row.id, model: 'labelled-answer', interactions: [{ response: { content: meta.answer } }] };
    writeFileSync(path.join(answersDir, `${row.id}.json`), JSON.stringify(cassette) + '\n');
  });
  if (labels.size === 0) fail(`${file}: no labelled tasks`);
  return labels;
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'tracegate-judge-accuracy-'));
const answers = path.join(scratch, 'answers');
mkdirSync(answers);
const labels = readSet(args.set, answers);
const judge = JUDGE_FLAGS.flatMap((f) => (args[f] === undefined ? [] : [`--${f}`, args[f]]));
const run = spawnSync(process.execPath, [path.join(ROOT, 'bin/tracegate.js'), 'run', args.set, '--cassettes', answers, ...judge, '--out', args.out, '--no-html', '-q'], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
rmSync(scratch, { recursive: true, force: true });
// 0, 1 (some rubric failed, as the fail labels expect) and 3 (errored items) leave a report; anything else does not.
if (![0, 1, 3].includes(run.status)) {
  process.stderr.write(run.stderr);
  fail(`tracegate run exited ${run.status ?? run.signal}`, run.status === 2 ? 2 : 3);
}

const report = JSON.parse(readFileSync(path.join(args.out, 'report.json'), 'utf8'));
const counts = { agree: 0, false_pass: 0, false_fail: 0, errored: 0 };
const disagreements = [];
for (const task of report.tasks) {
  const labelled = labels.get(task.id);
  if (!labelled) continue;
  const rubric = task.status === 'errored' ? undefined : task.checks.find((c) => c.type === 'rubric');
  if (!rubric) {
    counts.errored += 1;
    disagreements.push({ id: task.id, label: labelled.label, verdict: 'errored', detail: task.error?.message ?? 'no verdict' });
    continue;
  }
  const verdict = rubric.passed ? 'pass' : 'fail';
  if (verdict === labelled.label) counts.agree += 1;
  else {
    counts[verdict === 'pass' ? 'false_pass' : 'false_fail'] += 1;
    disagreements.push({ id: task.id, label: labelled.label, verdict, detail: `${labelled.why} | judge: ${rubric.reason}` });
  }
}
const graded = counts.agree + counts.false_pass + counts.false_fail;
const accuracy = graded === 0 ? null : counts.agree / graded;
const result = { schema_version: 'judge-accuracy/v1', set: path.relative(ROOT, path.resolve(args.set)), judge: report.run.judge ?? null, items: labels.size, graded, ...counts, accuracy, min_accuracy: minAccuracy, disagreements };
writeFileSync(path.join(args.out, 'judge-accuracy.json'), JSON.stringify(result, null, 2) + '\n');

const pct = (v) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const mode = report.run.judge ? `${report.run.judge.model}, ${report.run.judge.mode}` : 'no judge';
process.stdout.write(`judge ${mode}: accuracy ${counts.agree}/${graded} (${pct(accuracy)}) on ${result.set}; false passes ${counts.false_pass}, false fails ${counts.false_fail}, errored ${counts.errored}\n`);
for (const d of disagreements) process.stdout.write(`  ${d.id}: labelled ${d.label}, judged ${d.verdict}: ${d.detail.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')}\n`);
process.stdout.write(`written: ${path.join(args.out, 'judge-accuracy.json')}\n`);
if (counts.errored > 0) process.exit(3);
if (minAccuracy !== null && (accuracy ?? 0) < minAccuracy) process.exit(1);
