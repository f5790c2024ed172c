import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { DEMO_TASKS } from '../helpers/demoSuite.js';

/** One policy task (no model needed): a trial that ran leaves its trace and a journal line. */
function oneTaskSuite(): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, 's.jsonl'), JSON.stringify({ id: 'marks', tool_call: { name: 'calculator', arguments: { expression: '1+1' } } }) + '\n');
  return path.join(dir, 's.jsonl');
}

describe('fail before spending: every input is checked before the first trial', () => {
  it.each([
    ['a gate file that is not JSON', (dir: string) => {
      writeFileSync(path.join(dir, 'gate.json'), '{"min_pass_rate": ');
      return ['--gate', path.join(dir, 'gate.json')];
    }, /gate\.json: not valid JSON/],
    ['a gate file with an unknown rule', (dir: string) => {
      writeFileSync(path.join(dir, 'gate.json'), '{"min_pass": 0.9}');
      return ['--gate', path.join(dir, 'gate.json')];
    }, /gate\.json: field min_pass: unknown field/],
    ['a missing baseline', (dir: string) => ['--baseline', path.join(dir, 'nope.json')], /nope\.json: report not found/],
    ['a baseline of another schema', (dir: string) => {
      writeFileSync(path.join(dir, 'old.json'), '{"schema_version": "report/v0"}');
      return ['--baseline', path.join(dir, 'old.json')];
    }, /old\.json: field schema_version: "report\/v0" is not report\/v1/],
    ['a missing variant', (dir: string) => ['--variant', path.join(dir, 'variant.json')], /variant/],
    ['a missing policy', (dir: string) => ['--policy', path.join(dir, 'policy.json')], /policy\.json/],
    ['a gate file without schema_version', (dir: string) => {
      writeFileSync(path.join(dir, 'gate.json'), '{"min_pass_rate": 0.8}');
      return ['--gate', path.join(dir, 'gate.json')];
    }, /gate\.json: field schema_version: missing; a gate file starts with "schema_version": "gate\/v1"/],
    ['a baseline with a task id twice', (dir: string) => {
      const report = JSON.parse(readFileSync(path.join(ROOT, 'baselines/demo.json'), 'utf8'));
      report.tasks.push(report.tasks[0]);
      writeFileSync(path.join(dir, 'dup.json'), JSON.stringify(report));
      return ['--baseline', path.join(dir, 'dup.json')];
    }, new RegExp(`dup\\.json: field tasks\\.${DEMO_TASKS}\\.id: task \\S+ appears more than once`)],
    ['--cassettes naming a file, not a folder', (dir: string) => {
      writeFileSync(path.join(dir, 'cassette.json'), '{}');
      return ['--cassettes', path.join(dir, 'cassette.json')];
    }, /--cassettes .*cassette\.json: not a folder/],
    ['an output folder that is a file', (dir: string) => {
      writeFileSync(path.join(dir, 'file'), '');
      return ['--out', path.join(dir, 'file', 'out')];
    }, /--out .*: cannot write there/],
  ])('%s: exit 2, and no trial ran', async (_name, extra, message) => {
    const suite = oneTaskSuite();
    const dir = tempDir();
    const out = path.join(dir, 'out');
    const result = await runCli(['run', suite, '--out', out, ...extra(dir)]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    // No trial: no journal line, no trace, no progress line.
    expect(existsSync(path.join(out, 'results.jsonl'))).toBe(false);
    expect(existsSync(path.join(out, 'traces')) ? readdirSync(path.join(out, 'traces')) : []).toEqual([]);
    expect(result.stderr).not.toMatch(/\[1\/1\]/);
  });

  it('compare checks its gate before variant A runs', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'gate.json'), '[]');
    const out = path.join(dir, 'out');
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--gate', path.join(dir, 'gate.json'), '--out', out]);
    expect(result.code).toBe(2);
    expect(existsSync(path.join(out, 'a'))).toBe(false);
  });

  it('a suite argument that is a folder or a device says so, not "not found"', async () => {
    const dir = tempDir();
    const folder = await runCli(['run', dir, '--out', path.join(dir, 'out')]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/a folder, not a suite file/);
    const device = await runCli(['run', '/dev/null', '--out', path.join(dir, 'out')]);
    expect(device.code).toBe(2);
    expect(device.stderr).toMatch(/not a regular file/);
  });

  it('the same inputs, valid, do run', async () => {
    const suite = oneTaskSuite();
    const out = tempDir();
    const result = await runCli(['run', suite, '--out', out, '--no-html']);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(path.join(out, 'traces'))).toEqual(['marks.e0.json']);
  });
});

/** A loopback port on which nothing listens (bound, then closed). */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('fail fast: a model endpoint that cannot answer stops the run before its first trial', () => {
  it.each([
    ['the harness', [] as string[], 'the model endpoint'],
    ['an --agent-cmd agent (the capture proxy’s upstream)', ['--agent-cmd', `${process.execPath} -e 0`], "the capture proxy's upstream"],
  ])('%s: nothing listening on --base-url exits 3 within 10 s naming "connection refused"', async (_name, extra, role) => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 's.jsonl'), JSON.stringify({ id: 'ask', prompt: 'Say hi.', expected_contains: ['hi'] }) + '\n');
    const port = await closedPort();
    const out = path.join(dir, 'out');
    const started = Date.now();
    const result = await runCli(['run', path.join(dir, 's.jsonl'), '--model', 'm', '--base-url', `http://127.0.0.1:${port}/v1`, '--out', out, ...extra], { env: { OPENAI_API_KEY: 'sk-test-not-real-000000000000' } });
    const seconds = (Date.now() - started) / 1000;
    expect(result.code, result.stderr).toBe(3);
    expect(seconds).toBeLessThan(10);
    expect(result.stderr).toContain(`error: tracegate could not run: connection refused: ${role} http://127.0.0.1:${port}/v1: nothing listens there`);
    expect(existsSync(path.join(out, 'results.jsonl'))).toBe(false);
  });

  it('a live judge (--judge-model) that cannot answer stops the run too, before any trial spends a model call', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 's.jsonl'), JSON.stringify({ id: 'graded', tool_call: { name: 'calculator', arguments: { expression: '1+1' } }, checks: [{ type: 'rubric', rubric: 'The result is 2.' }] }) + '\n');
    const port = await closedPort();
    const out = path.join(dir, 'out');
    const result = await runCli(['run', path.join(dir, 's.jsonl'), '--judge-model', 'judge', '--judge-base-url', `http://127.0.0.1:${port}/v1`, '--out', out], { env: { OPENAI_API_KEY: 'sk-test-not-real-000000000000' } });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toContain(`error: tracegate could not run: connection refused: the judge endpoint http://127.0.0.1:${port}/v1: nothing listens there; start the server, or pass the right --judge-base-url (or OPENAI_BASE_URL)`);
    expect(existsSync(path.join(out, 'results.jsonl'))).toBe(false);
  });
});
