import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBubblewrap } from '../../harness/index.js';
import { RunReportSchema } from '../../src/schema/report.js';
import { TraceSchema, toolSpans, type Trace } from '../../src/schema/trace.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

const readTrace = (out: string, file: string): Trace => TraceSchema.parse(JSON.parse(readFileSync(path.join(out, file), 'utf8')));

describe.skipIf(!hasBubblewrap())('the coding-agent suite under bubblewrap', () => {
  it('reads code, runs the failing tests, fixes the bug with a write and reruns them green; every guard allowed, every trap refused', async () => {
    const out = tempDir();
    const result = await runCli(['run', 'suites/coding.jsonl', '--sandbox', 'bwrap', '--out', out, '-q', '--no-html']);
    expect(result.code, result.stdout.slice(-3000)).toBe(0);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    expect(report.run.sandbox).toBe('bwrap');
    expect(report.run.sandbox_reason).toMatch(/--sandbox bwrap/);
    expect(report.tasks.every((t) => t.status === 'passed')).toBe(true);
    expect(report.tasks.filter((t) => t.tags.includes('trap')).length).toBeGreaterThanOrEqual(45);

    const fix = report.tasks.find((t) => t.id === 'coding_fix_failing_test')!;
    const trace = readTrace(out, fix.trace_file!);
    expect(trace.spans.find((s) => s.kind === 'agent')!.attributes).toMatchObject({ 'sandbox.mode': 'bwrap' });
    const runs = toolSpans(trace).filter((s) => s.attributes['gen_ai.tool.name'] === 'run_shell');
    expect(runs.map((s) => s.attributes['sandbox.mode'])).toEqual(['bwrap', 'bwrap']);
    expect(runs[0]!.attributes).toMatchObject({ 'result.ok': false, error_type: 'COMMAND_FAILED' });
    expect(String(runs[0]!.attributes['gen_ai.tool.call.result'])).toMatch(/FAIL: test_add/);
    expect(runs[1]!.attributes).toMatchObject({ 'result.ok': true });
    expect(String(runs[1]!.attributes['gen_ai.tool.call.result'])).toMatch(/Ran 3 tests[\s\S]*OK/);
    // Judged by outcome too: the hidden tests ran on the final workspace, and only calc.py changed.
    const trial = fix.trials[0]!;
    expect(trial.checks.find((c) => c.type === 'command')).toMatchObject({ passed: true });
    expect(trial.checks.find((c) => c.type === 'changed_files')).toMatchObject({ passed: true, reason: 'changed calc.py, within scope' });
    const check = trace.spans.find((s) => s.kind === 'check' && s.attributes['tracegate.check.type'] === 'command')!;
    expect(String(check.attributes['tracegate.check.output'])).toMatch(/Ran 4 tests[\s\S]*OK/);
    // The first reply's two calls ran in order, each recorded.
    const first = toolSpans(trace).filter((s) => s.attributes['step'] === 1);
    expect(first.map((s) => [s.attributes['gen_ai.tool.name'], s.attributes['tool.call_index']])).toEqual([['read_file', 0], ['run_shell', 1]]);
  });
});

/** A workspace repository with a program planted in every place git could run one from. */
function trappedWorkspace(dir: string, canaryDir: string): string {
  const ws = path.join(dir, 'repo');
  mkdirSync(ws, { recursive: true });
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, env: { PATH: process.env['PATH'], HOME: ws, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    if (r.status !== 0) throw new Error(String(r.stderr));
  };
  git('init', '-q', '.');
  writeFileSync(path.join(ws, 'a.txt'), 'hello\n');
  writeFileSync(path.join(ws, '.gitattributes'), 'a.txt filter=evil diff=evil\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  const trap = (name: string) => `echo TRAP-FIRED-${name} >&2; touch ${canaryDir}/${name}`;
  writeFileSync(
    path.join(ws, '.git/config'),
    [
      '[core]', `\tfsmonitor = "${trap('fsmonitor')}; echo"`, `\tpager = "${trap('pager')}; cat"`,
      '[filter "evil"]', `\tclean = "${trap('clean')}; cat"`,
      '[diff "evil"]', `\ttextconv = "${trap('textconv')}; cat"`, `\tcommand = "${trap('ext_diff')}"`,
      '[diff]', `\texternal = "${trap('external')}"`,
      '[alias]', `\tstatus = "!${trap('alias')}"`, `\tshow = "!${trap('alias')}"`,
      '',
    ].join('\n'),
    { flag: 'a' },
  );
  writeFileSync(path.join(ws, '.git/hooks/post-index-change'), `#!/bin/sh\n${trap('hook')}\n`);
  chmodSync(path.join(ws, '.git/hooks/post-index-change'), 0o755);
  writeFileSync(path.join(ws, 'a.txt'), 'hello\nchanged by the agent\n');
  return ws;
}

describe.each(['process', 'bwrap'] as const)('an agent running git in a trapped repository (%s sandbox)', (sandbox) => {
  it.skipIf(sandbox === 'bwrap' && !hasBubblewrap())('git status, diff, log and show are allowed and none of the planted programs runs', async () => {
    const dir = tempDir();
    const canaries = path.join(dir, 'canaries');
    mkdirSync(canaries);
    trappedWorkspace(dir, canaries);
    const commands = ['git status', 'git diff', 'git log -p', 'git show'];
    writeFileSync(path.join(dir, 'suite.jsonl'), JSON.stringify({ id: 'git_traps', prompt: 'What changed in this repository?', workspace: 'repo', expected_contains: ['changed'], max_steps: 3 }) + '\n');
    mkdirSync(path.join(dir, 'cassettes'));
    writeFileSync(
      path.join(dir, 'cassettes/git_traps.json'),
      JSON.stringify({
        schema_version: 'cassette/v1', kind: 'script', task_id: 'git_traps', model: 'git-script',
        interactions: [
          { response: { content: null, tool_calls: commands.map((command) => ({ name: 'run_shell', arguments: { command } })) } },
          { response: { content: 'a.txt changed: one line added.', tool_calls: [] } },
        ],
      }),
    );
    const out = path.join(dir, 'out');
    const result = await runCli(['run', path.join(dir, 'suite.jsonl'), '--cassettes', path.join(dir, 'cassettes'), '--sandbox', sandbox, '--out', out, '-q', '--no-html']);
    expect(result.code, result.stdout.slice(-2000)).toBe(0);
    const trace = readTrace(out, 'traces/git_traps.e0.json');
    const spans = toolSpans(trace);
    expect(spans.map((s) => s.attributes['gen_ai.tool.call.arguments'])).toEqual(commands.map((command) => JSON.stringify({ command })));
    expect(spans.map((s) => s.attributes['tool.call_index'])).toEqual([0, 1, 2, 3]);
    for (const span of spans) {
      expect(span.attributes, String(span.attributes['gen_ai.tool.call.arguments'])).toMatchObject({ policy_decision: 'allow', 'result.ok': true, 'sandbox.mode': sandbox });
    }
    expect(String(spans[0]!.attributes['gen_ai.tool.call.result'])).toMatch(/modified:\s+a\.txt/);
    expect(String(spans[1]!.attributes['gen_ai.tool.call.result'])).toContain('+changed by the agent');
    expect(JSON.stringify(trace)).not.toContain('TRAP-FIRED');
    expect(existsSync(canaries) && spawnSync('ls', [canaries]).stdout.toString()).toBe('');
  });
});

describe('tool-calling options from a variant', () => {
  it('sends tool_choice and parallel_tool_calls, records them, and runs every call of one reply in order', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'suite.jsonl'), JSON.stringify({ id: 'sum', prompt: 'Add 2 and 3, then 4 and 5.', expected_contains: ['5', '9'], max_steps: 3 }) + '\n');
    writeFileSync(path.join(dir, 'variant.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'forced', tool_choice: { name: 'calculator' }, parallel_tool_calls: true }));
    const server = new FakeOpenAIServer((_body, i) =>
      i === 0
        ? { tool_calls: [{ name: 'calculator', arguments: '{"operation":"add","a":2,"b":3}' }, { name: 'calculator', arguments: '{"operation":"add","a":4,"b":5}' }] }
        : { content: 'The sums are 5 and 9.' },
    );
    const baseURL = await server.start();
    const out = path.join(dir, 'out');
    try {
      const result = await runCli(['run', path.join(dir, 'suite.jsonl'), '--model', 'm', '--base-url', baseURL, '--variant', path.join(dir, 'variant.json'), '--out', out, '-q', '--no-html']);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const body = server.requests[0]!.body as unknown as Record<string, unknown>;
      expect(body['tool_choice']).toEqual({ type: 'function', function: { name: 'calculator' } });
      expect(body['parallel_tool_calls']).toBe(true);
      // Once a tool has run, a forced choice falls back to auto so that the model can answer.
      expect((server.requests[1]!.body as unknown as Record<string, unknown>)['tool_choice']).toBe('auto');
    } finally {
      await server.stop();
    }
    const trace = readTrace(out, 'traces/sum.e0.json');
    expect(trace.spans.find((s) => s.kind === 'agent')!.attributes).toMatchObject({ 'tracegate.request.tool_choice': 'calculator', 'tracegate.request.parallel_tool_calls': true });
    expect(toolSpans(trace).map((s) => [s.attributes['tool.call_index'], s.attributes['gen_ai.tool.call.result']])).toEqual([[0, '5'], [1, '9']]);
  });

  it('a variant with an unknown tool_choice value is bad input naming the field', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'variant.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'bad', tool_choice: 'sometimes' }));
    const result = await runCli(['run', 'suites/coding.jsonl', '--variant', path.join(dir, 'variant.json'), '--out', tempDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/variant\.json.*tool_choice/s);
  });
});

describe('--sandbox auto where bubblewrap is missing', () => {
  it('falls back to the process group and says why in the report and the trace; --sandbox bwrap is bad input', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'suite.jsonl'), JSON.stringify({ id: 'py', tool_call: { name: 'run_shell', arguments: { command: "python3 -c 'print(1)'" } }, expected_policy: 'require_approval' }) + '\n');
    const env = { PATH: path.join(dir, 'no-bin') };
    const out = path.join(dir, 'out');
    const auto = await runCli(['run', path.join(dir, 'suite.jsonl'), '--out', out, '-q', '--no-html'], { env });
    expect(auto.code, auto.stdout + auto.stderr).toBe(0);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    expect(report.run).toMatchObject({ sandbox: 'process', sandbox_reason: 'process group: --sandbox auto and bubblewrap (bwrap) is not installed' });
    expect(auto.stdout).toContain('bubblewrap (bwrap) is not installed');
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toContain('bubblewrap (bwrap) is not installed');
    const root = readTrace(out, 'traces/py.e0.json').spans.find((s) => s.kind === 'agent')!;
    expect(root.attributes).toMatchObject({ 'sandbox.mode': 'process', 'sandbox.reason': expect.stringContaining('not installed') });
    const forced = await runCli(['run', path.join(dir, 'suite.jsonl'), '--sandbox', 'bwrap', '--out', path.join(dir, 'out2')], { env });
    expect(forced.code).toBe(2);
    expect(forced.stderr).toMatch(/--sandbox bwrap: bubblewrap \(bwrap\) is not installed/);
  });
});
