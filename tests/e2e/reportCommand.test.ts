import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

/** The page's text plus every gzip+base64 block it embeds, inflated (where task details live). */
function pageText(html: string): string {
  const blocks = html.match(/H4sI[A-Za-z0-9+/=]+/g) ?? [];
  return [html, ...blocks.map((b) => gunzipSync(Buffer.from(b, 'base64')).toString('utf8'))].join('\n');
}

const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD';
let dir: string;
let reportFile: string;

beforeAll(async () => {
  dir = tempDir();
  const suite = path.join(dir, 's.jsonl');
  writeFileSync(suite, JSON.stringify({ id: 'calc', tool_call: { name: 'calculator', arguments: { expression: '1+1' } } }) + '\n');
  const run = await runCli(['run', suite, '--out', path.join(dir, 'run'), '--no-html']);
  expect(run.code, run.stderr).toBe(0);
  reportFile = path.join(dir, 'run', 'report.json');
});

describe('tracegate report', () => {
  it('redacts secrets in the stored report as a run does', async () => {
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    report.tasks[0].answer_preview = `marker-7f3 ${SECRET}`;
    report.tasks[0].trials[0].answer_preview = `marker-7f3 ${SECRET}`;
    const edited = path.join(dir, 'edited', 'report.json');
    mkdirSync(path.dirname(edited));
    writeFileSync(edited, JSON.stringify(report));
    const result = await runCli(['report', edited]);
    expect(result.code, result.stderr).toBe(0);
    const text = pageText(readFileSync(path.join(dir, 'edited', 'report.html'), 'utf8'));
    expect(text).toContain('marker-7f3');
    expect(text).not.toContain(SECRET);
    expect(text).toMatch(/marker-7f3 \[REDACTED:/);
  });

  it('redacts the trace files it embeds too: a report folder from elsewhere may hold secrets in its traces', async () => {
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    const folder = path.join(dir, 'foreign');
    mkdirSync(path.join(folder, 'traces'), { recursive: true });
    const traceFile = report.tasks[0].trials[0].trace_file as string;
    const trace = JSON.parse(readFileSync(path.join(dir, 'run', traceFile), 'utf8'));
    trace.final_answer.text = `marker-9c1 ${SECRET}`;
    writeFileSync(path.join(folder, traceFile), JSON.stringify(trace));
    writeFileSync(path.join(folder, 'report.json'), JSON.stringify(report));
    const result = await runCli(['report', path.join(folder, 'report.json')]);
    expect(result.code, result.stderr).toBe(0);
    const text = pageText(readFileSync(path.join(folder, 'report.html'), 'utf8'));
    expect(text).toContain('marker-9c1');
    expect(text).not.toContain(SECRET);
  });

  it('refuses an --out that is the input report or a folder (exit 2, input intact), and creates a missing folder', async () => {
    const before = readFileSync(reportFile, 'utf8');
    const onto = await runCli(['report', reportFile, '--out', reportFile]);
    expect(onto.code).toBe(2);
    expect(onto.stderr).toMatch(/that is the input report/);
    expect(readFileSync(reportFile, 'utf8')).toBe(before);

    const folder = await runCli(['report', reportFile, '--out', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/a folder; give the HTML file's name/);
    expect(folder.stderr).not.toMatch(/at .*\.js:\d+/);

    const nested = path.join(dir, 'new', 'deeper', 'page.html');
    const created = await runCli(['report', reportFile, '--out', nested]);
    expect(created.code, created.stderr).toBe(0);
    expect(readFileSync(nested, 'utf8')).toMatch(/^<!doctype html>/i);

    writeFileSync(path.join(dir, 'afile'), '');
    const underFile = await runCli(['report', reportFile, '--out', path.join(dir, 'afile', 'page.html')]);
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toMatch(/afile is a file, not a folder/);
  });
});

describe('compare --baseline', () => {
  it('is refused with exit 2 (variant A is the baseline), before anything runs', async () => {
    const out = path.join(tempDir(), 'out');
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--baseline', 'nope.json', '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/compare takes no --baseline \(nope\.json\): variant A is the baseline/);
    expect(existsSync(out)).toBe(false);
  });
});
