import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunReportSchema } from '../../src/schema/report.js';
import { runCli, tempDir } from '../helpers/cli.js';

// A suite judged by what the agent leaves in its workspace: hidden tests copied in after it ran,
// a changed-files scope, a file check and custom checks in Python and JavaScript.
const dir = tempDir('tracegate-outcome-');

function write(rel: string, text: string) {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
}

beforeAll(() => {
  write('ws/calc.py', 'def add(a, b):\n    return a - b\n');
  write('hidden/test_hidden.py', 'import unittest\nfrom calc import add\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n');
  write('hidden/checks/score.py', 'import json, sys\nd = json.load(sys.stdin)\nok = "a + b" in open(d["workspace"] + "/calc.py").read()\nprint(json.dumps({"pass": ok, "reason": "calc.py adds" if ok else "calc.py still subtracts", "score": 1 if ok else 0}))\n');
  write('score.mjs', "export default function (input) { const ok = (input.trace.final_answer.text ?? '').includes('pass'); return { pass: ok, reason: ok ? 'the answer says pass' : 'no pass' }; }\n");
  write('crash.mjs', "export default function () { throw new Error('scorer exploded'); }\n");
  const checks = [
    { type: 'command', run: 'python3 -m unittest -q test_hidden', exit_code: 0 },
    { type: 'changed_files', only: ['calc.py'], unchanged: ['tests/**'] },
    { type: 'file', path: 'calc.py', contains: ['a + b'] },
    { type: 'custom', run: 'python3 checks/score.py' },
    { type: 'custom', module: './score.mjs' },
  ];
  write('suite.jsonl', JSON.stringify({ id: 'fix_add', prompt: 'Fix add() so the tests pass.', workspace: 'ws', hidden_workspace: 'hidden', checks }) + '\n');
  write('crash.jsonl', JSON.stringify({ id: 'crashing_check', prompt: 'x', workspace: 'ws', checks: [{ type: 'custom', module: './crash.mjs' }] }) + '\n');
  write('lazy.sh', 'cat >/dev/null; echo "tests pass"\n');
  write('fixer.sh', "cat >/dev/null; sed -i 's/a - b/a + b/' calc.py; echo 'fixed add(), tests pass'\n");
});

async function trialOf(suite: string, agent: string) {
  const out = tempDir('tracegate-outcome-out-');
  const result = await runCli(['run', path.join(dir, suite), '--agent-cmd', `sh ${path.join(dir, agent)}`, '--out', out]);
  const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
  const trial = report.tasks[0]!.trials[0]!;
  const trace = JSON.parse(readFileSync(path.join(out, trial.trace_file!), 'utf8')) as { spans: Array<{ kind: string; attributes: Record<string, unknown> }> };
  return { result, trial, trace, traceFile: path.join(out, trial.trace_file!) };
}

describe('outcome checks on the final workspace (--agent-cmd)', () => {
  it('an agent that edits nothing and answers "tests pass" fails with an outcome reason; the hidden tests ran and are in the trace', async () => {
    const { result, trial, trace, traceFile } = await trialOf('suite.jsonl', 'lazy.sh');
    expect(result.code).toBe(1);
    expect(trial.status).toBe('failed');
    expect(trial.failure_reason).toBe('OUTCOME_UNMET');
    const command = trial.checks.find((c) => c.type === 'command')!;
    expect(command.passed).toBe(false);
    expect(command.reason).toContain('AssertionError');
    expect(trial.checks.filter((c) => c.type === 'custom').map((c) => c.passed)).toEqual([false, true]);
    const spans = trace.spans.filter((s) => s.kind === 'check');
    expect(spans.map((s) => s.attributes['tracegate.check.type'])).toEqual(['command', 'changed_files', 'file', 'custom', 'custom']);
    expect(String(spans[0]!.attributes['tracegate.check.output'])).toContain('FAILED');
    const replay = await runCli(['replay', traceFile]);
    expect(replay.stdout).toContain('after the run (on the final workspace)');
    expect(replay.stdout).toMatch(/check command `python3 -m unittest -q test_hidden` exited 1/);
  }, 120_000);

  it('passes when the agent edit makes the hidden tests pass, within the changed-files scope', async () => {
    const { result, trial } = await trialOf('suite.jsonl', 'fixer.sh');
    expect(trial.checks.filter((c) => !c.passed)).toEqual([]);
    expect(trial.status).toBe('passed');
    expect(result.code).toBe(0);
    expect(trial.checks.find((c) => c.type === 'changed_files')!.reason).toContain('calc.py');
  }, 120_000);

  it('a crashing custom check errors the trial (CHECK_ERROR) with its stderr as evidence', async () => {
    const { trial } = await trialOf('crash.jsonl', 'lazy.sh');
    expect(trial.status).toBe('errored');
    expect(trial.error?.code).toBe('CHECK_ERROR');
    expect(trial.error?.message).toContain('scorer exploded');
  }, 120_000);

  it('bad specs are bad input: exit 2 naming file, line and field', async () => {
    write(
      'bad.jsonl',
      [
        { id: 'a', prompt: 'x', checks: [{ type: 'custom' }] },
        { id: 'b', prompt: 'x', checks: [{ type: 'file', path: '../etc/passwd' }] },
        { id: 'c', prompt: 'x', checks: [{ type: 'command', run: 'true', output_matches: '(' }] },
        { id: 'd', prompt: 'x', hidden_workspace: 'nope' },
        { id: 'e', prompt: 'x', checks: [{ type: 'changed_files', max: -1 }] },
      ]
        .map((t) => JSON.stringify(t))
        .join('\n') + '\n',
    );
    const result = await runCli(['validate', path.join(dir, 'bad.jsonl')]);
    expect(result.code).toBe(2);
    const text = result.stderr + result.stdout;
    for (const [line, field] of [[1, 'checks.0.run'], [2, 'checks.0.path'], [3, 'checks.0.output_matches'], [4, 'hidden_workspace'], [5, 'checks.0.max']] as const) {
      expect(text).toMatch(new RegExp(`bad\\.jsonl:${line}\\b[^\\n]*${field.replace(/\./g, '\\.')}`));
    }
  }, 120_000);
});

describe('outcome checks on the final workspace (the reference harness, from cassettes)', () => {
  it('edits nothing and answers "tests pass": fails OUTCOME_UNMET; writes the fix: the hidden tests pass', async () => {
    const cassette = (taskId: string, interactions: unknown[]) =>
      write(`cassettes/${taskId}.json`, JSON.stringify({ schema_version: 'cassette/v1', kind: 'script', task_id: taskId, model: 'outcome-script', note: 'hand-written script', interactions }));
    const usage = { input_tokens: 100, output_tokens: 10 };
    cassette('harness_lazy', [{ response: { content: 'All tests pass.', tool_calls: [], usage } }]);
    cassette('harness_fixer', [
      { response: { content: null, tool_calls: [{ name: 'write_file', arguments: { path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' } }], usage } },
      { response: { content: 'Fixed add(); the tests pass.', tool_calls: [], usage } },
    ]);
    const checks = [
      { type: 'command', run: 'python3 -m unittest -q test_hidden', exit_code: 0 },
      { type: 'changed_files', only: ['calc.py'] },
    ];
    write(
      'harness.jsonl',
      [{ suite: { cassettes: 'cassettes' } }, ...['harness_lazy', 'harness_fixer'].map((id) => ({ id, prompt: 'Fix add() so the tests pass.', workspace: 'ws', hidden_workspace: 'hidden', checks }))]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const out = tempDir('tracegate-outcome-out-');
    const result = await runCli(['run', path.join(dir, 'harness.jsonl'), '--out', out, '-q', '--no-html']);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    const trial = (id: string) => report.tasks.find((t) => t.id === id)!.trials[0]!;
    expect(trial('harness_lazy')).toMatchObject({ status: 'failed', failure_reason: 'OUTCOME_UNMET' });
    expect(trial('harness_fixer').checks.filter((c) => !c.passed)).toEqual([]);
    expect(trial('harness_fixer').status).toBe('passed');
    expect(result.code).toBe(1);
  }, 120_000);
});
