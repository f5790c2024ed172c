import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunReportSchema } from '../../src/schema/report.js';
import { TraceSchema, toolAttr, toolSpans, type Trace } from '../../src/schema/trace.js';
import { runCli, tempDir } from '../helpers/cli.js';

const shell = (id: string, command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, tool_call: { name: 'run_shell', arguments: { command } }, ...extra });

function policyWith(limits: Record<string, unknown>): string {
  const policy = JSON.parse(readFileSync('harness/policy/default-policy.json', 'utf8')) as Record<string, unknown>;
  return JSON.stringify({ ...policy, ...limits });
}

describe('the shell timeout and output cap, set by the policy and per task', () => {
  it('a task overrides the policy, the policy overrides the defaults, and every trace records what held', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'policy.json'), policyWith({ shell_timeout_ms: 400, output_cap: 40 }));
    writeFileSync(
      path.join(dir, 'suite.jsonl'),
      [
        JSON.stringify({ suite: { policy: 'policy.json' } }),
        // The policy's 400 ms: a command that would sleep a minute is killed.
        shell('policy_timeout', 'sleep 60', { expected_error_type: 'COMMAND_TIMEOUT' }),
        // The policy's 40 characters: seq's 3,893 are cut.
        shell('policy_cap', 'seq 1 1000'),
        // The task's own limits win: 2000 characters hold all 292, a minute holds a short sleep.
        shell('task_limits', 'sleep 1 && seq 1 100', { shell_timeout_ms: 60_000, output_cap: 2000 }),
      ].join('\n'),
    );
    const out = tempDir();
    const run = await runCli(['run', path.join(dir, 'suite.jsonl'), '--out', out, '-q', '--no-html', '--sandbox', 'process']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    const trace = (id: string): Trace => TraceSchema.parse(JSON.parse(readFileSync(path.join(out, report.tasks.find((t) => t.id === id)!.trace_file!), 'utf8')));
    const root = (t: Trace) => t.spans.find((s) => s.parent_id === null)!.attributes;

    const timedOut = trace('policy_timeout');
    expect(root(timedOut)).toMatchObject({ 'tool.shell_timeout_ms': 400, 'tool.output_cap': 40 });
    expect(toolAttr(toolSpans(timedOut)[0]!)).toMatchObject({ errorType: 'COMMAND_TIMEOUT', message: 'command did not finish within 400 ms and was killed' });

    const capped = toolSpans(trace('policy_cap'))[0]!;
    expect(toolAttr(capped).truncated).toBe(true);
    expect(capped.attributes['output_chars']).toBe(3893);

    const own = trace('task_limits');
    expect(root(own)).toMatchObject({ 'tool.shell_timeout_ms': 60_000, 'tool.output_cap': 2000 });
    const ownSpan = toolAttr(toolSpans(own)[0]!);
    expect(ownSpan).toMatchObject({ ok: true, truncated: false });
  });

  it('with neither set, the harness defaults hold: 10 s and 8000 characters', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'suite.jsonl'), shell('defaults', 'seq 1 3000'));
    const out = tempDir();
    const run = await runCli(['run', path.join(dir, 'suite.jsonl'), '--out', out, '-q', '--no-html', '--sandbox', 'process']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    const trace = TraceSchema.parse(JSON.parse(readFileSync(path.join(out, report.tasks[0]!.trace_file!), 'utf8')));
    expect(trace.spans.find((s) => s.parent_id === null)!.attributes).toMatchObject({ 'tool.shell_timeout_ms': 10_000, 'tool.output_cap': 8000 });
    expect(toolAttr(toolSpans(trace)[0]!).truncated).toBe(true);
  });

  it('a bad limit in a task or a policy is bad input naming file, line and field (exit 2)', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'suite.jsonl'), [shell('fine', 'true'), shell('zero', 'true', { shell_timeout_ms: 0 })].join('\n'));
    const task = await runCli(['run', path.join(dir, 'suite.jsonl'), '--out', tempDir(), '-q', '--no-html']);
    expect(task.code).toBe(2);
    expect(task.stderr).toMatch(/suite\.jsonl:2: field shell_timeout_ms: /);

    writeFileSync(path.join(dir, 'good.jsonl'), shell('ok', 'true'));
    writeFileSync(path.join(dir, 'policy.json'), policyWith({ output_cap: 'lots' }));
    const policy = await runCli(['run', path.join(dir, 'good.jsonl'), '--policy', path.join(dir, 'policy.json'), '--out', tempDir(), '-q', '--no-html']);
    expect(policy.code).toBe(2);
    expect(policy.stderr).toMatch(/policy\.json(:\d+)?: field output_cap: .*expected number/);
  });
});
