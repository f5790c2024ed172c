import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { FakeOpenAIServer, type ChatRequestBody, type ScriptedReply } from '../helpers/openaiServer.js';

/**
 * scripts/judgeAccuracy.mjs against loopback judges whose verdicts are known in advance: one that
 * passes everything (its accuracy is the share of "pass" labels), one that grades like the labels
 * (100%), the second recorded and replayed with its server stopped. The labels come from the
 * shipped set, read here independently of the script.
 */
const SET = path.join(ROOT, 'examples/judge-accuracy/labelled.jsonl');
const rows = readFileSync(SET, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { id?: string; metadata?: { answer: string; label: 'pass' | 'fail' } })
  .filter((r) => r.id);
const passLabels = rows.filter((r) => r.metadata!.label === 'pass').length;

function accuracy(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/judgeAccuracy.mjs'), ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const verdict = (pass: boolean): ScriptedReply => ({ content: JSON.stringify({ reasoning: pass ? 'meets the rubric' : 'misses the rubric', score: pass ? 1 : 0, pass }) });
const answerOf = (body: ChatRequestBody) => /<answer[^>]*>\n([\s\S]*?)\n<\/answer>/.exec(String(body.messages[1]?.content ?? ''))?.[1] ?? '';
/** Grades as the person did: finds the answer it was shown in the set. */
const labelledJudge = (body: ChatRequestBody) => verdict(rows.find((r) => r.metadata!.answer === answerOf(body))?.metadata!.label === 'pass');

const result = (out: string) => JSON.parse(readFileSync(path.join(out, 'judge-accuracy.json'), 'utf8'));
let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe('judge accuracy on the labelled set', () => {
  it('a judge that passes everything scores the share of pass labels and misses --min-accuracy', async () => {
    server = new FakeOpenAIServer(() => verdict(true));
    const base = await server.start();
    const out = path.join(tempDir(), 'out');
    const r = await accuracy(['--judge-model', 'lenient', '--judge-base-url', base, '--out', out, '--min-accuracy', '0.9']);
    expect(r.code, r.stderr).toBe(1);
    expect(server.requests).toHaveLength(rows.length);
    const measured = result(out);
    expect(measured).toMatchObject({ items: rows.length, graded: rows.length, agree: passLabels, false_pass: rows.length - passLabels, false_fail: 0, errored: 0 });
    expect(measured.accuracy).toBeCloseTo(passLabels / rows.length, 10);
    expect(r.stdout).toContain(`accuracy ${passLabels}/${rows.length}`);
    // The judge never sees the label: it is metadata, not part of the fixed prompt.
    expect(JSON.stringify(server.requests.map((q) => q.body))).not.toMatch(/"label"|labelled/);
  });

  it('a judge that grades like the labels scores 100%; recorded, it replays the same measurement with no judge server', async () => {
    server = new FakeOpenAIServer(labelledJudge);
    const base = await server.start();
    const dir = tempDir();
    const record = path.join(dir, 'judge');
    const r1 = await accuracy(['--judge-model', 'careful', '--judge-base-url', base, '--judge-record', record, '--out', path.join(dir, 'live'), '--min-accuracy', '0.9']);
    expect(r1.code, r1.stderr).toBe(0);
    expect(result(path.join(dir, 'live'))).toMatchObject({ accuracy: 1, agree: rows.length, judge: { model: 'careful', mode: 'live' } });
    await server.stop();
    server = null;
    const r2 = await accuracy(['--judge-cassettes', record, '--out', path.join(dir, 'replay')]);
    expect(r2.code, r2.stderr).toBe(0);
    expect(result(path.join(dir, 'replay'))).toMatchObject({ accuracy: 1, agree: rows.length, judge: { mode: 'replayed' } });
    expect(r2.stdout).toMatch(/judge careful, replayed: accuracy/);
  });

  it('a failing judge is exit 3 with the items it could not grade; a bad set is exit 2 naming file, line and field', async () => {
    server = new FakeOpenAIServer(() => ({ content: 'no verdict here' }));
    const base = await server.start();
    const out = path.join(tempDir(), 'out');
    const r = await accuracy(['--judge-model', 'broken', '--judge-base-url', base, '--out', out]);
    expect(r.code, r.stderr).toBe(3);
    expect(result(out)).toMatchObject({ graded: 0, errored: rows.length, accuracy: null });

    const bad = path.join(tempDir(), 'set.jsonl');
    writeFileSync(bad, [JSON.stringify({ id: 'a', prompt: 'p', checks: [{ type: 'rubric', rubric: 'r' }], metadata: { answer: 'x', label: 'maybe' } })].join('\n'));
    const refused = await accuracy(['--set', bad, '--judge-model', 'm', '--judge-base-url', base]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/set\.jsonl:1: field metadata\.label:/);
  });
});
