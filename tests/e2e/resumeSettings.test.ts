import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';

/** Policy tasks (no model): run_shell `ls`, which the default policy allows and a deny-shell policy denies. */
function policySuite(count: number): string {
  const dir = tempDir();
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ id: `p${i}`, tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, expected_policy: 'allow' }));
  writeFileSync(path.join(dir, 's.jsonl'), lines.join('\n') + '\n');
  return path.join(dir, 's.jsonl');
}

function denyShellPolicy(): string {
  const policy = JSON.parse(readFileSync(path.join(ROOT, 'harness/policy/default-policy.json'), 'utf8')) as { tools: Record<string, { decision: string }> };
  policy.tools['run_shell']!.decision = 'deny';
  const file = path.join(tempDir(), 'deny-shell.json');
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

describe('--resume keeps journaled trials only under the settings they ran with', () => {
  it('a resume with another policy and timeout is refused with exit 2 naming each change, before any trial; the same settings resume', async () => {
    const suite = policySuite(3);
    const out = tempDir();
    const base = ['run', suite, '--out', out, '--no-html'];
    const first = await runCli(base);
    expect(first.code, first.stderr).toBe(0);
    const journal = readFileSync(path.join(out, 'results.jsonl'), 'utf8');
    const report = readFileSync(path.join(out, 'report.json'), 'utf8');

    const deny = denyShellPolicy();
    const changed = await runCli([...base, '--resume', '--policy', deny, '--timeout', '5000', '--max-steps', '4']);
    expect(changed.code, changed.stderr).toBe(2);
    expect(changed.stderr).toMatch(/--resume: the trials in .* ran with other settings/);
    expect(changed.stderr).toMatch(/policy: .*default-policy\.json \(sha256 [0-9a-f]{12}\) → .*deny-shell\.json \(sha256 [0-9a-f]{12}\)/);
    expect(changed.stderr).toContain('timeout_ms: 300000 → 5000');
    expect(changed.stderr).toContain('max_steps: default (10) → 4');
    expect(changed.stderr).not.toMatch(/\[1\/3\]/);
    // Nothing was touched: the journal and the report are the first run's.
    expect(readFileSync(path.join(out, 'results.jsonl'), 'utf8')).toBe(journal);
    expect(readFileSync(path.join(out, 'report.json'), 'utf8')).toBe(report);

    // The same settings resume: nothing runs again, the report holds the three trials.
    const same = await runCli([...base, '--resume']);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toMatch(/\[\d+\/3\]/);
    expect(readFileSync(path.join(out, 'results.jsonl'), 'utf8')).toBe(journal);

    // A fresh run under the new policy is what it takes, and it judges the change (every task now denied).
    const fresh = await runCli([...base, '--policy', deny]);
    expect(fresh.code, fresh.stderr).toBe(1);
    expect(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).run.policy).toMatch(/deny-shell\.json$/);
  });

  it('the sandbox recorded is the one that ran: --sandbox auto then --sandbox process is a change where auto chose bubblewrap', async () => {
    const suite = policySuite(1);
    const out = tempDir();
    const first = await runCli(['run', suite, '--out', out, '--no-html']);
    expect(first.code, first.stderr).toBe(0);
    const ran = (JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { run: { sandbox: string } }).run.sandbox;
    const other = ran === 'process' ? 'bwrap' : 'process';
    const resumed = await runCli(['run', suite, '--out', out, '--no-html', '--resume', '--sandbox', other]);
    if (ran === 'process') {
      // No bubblewrap here: asking for it is bad input before the settings are compared.
      expect(resumed.code).toBe(2);
    } else {
      expect(resumed.code, resumed.stderr).toBe(2);
      expect(resumed.stderr).toContain(`sandbox: ${ran} → process`);
    }
  });

  it('a policy file edited in place counts as a change', async () => {
    const suite = policySuite(1);
    const out = tempDir();
    const policy = denyShellPolicy();
    const first = await runCli(['run', suite, '--out', out, '--no-html', '--policy', policy]);
    expect(first.code, first.stderr).toBe(1);
    const edited = JSON.parse(readFileSync(policy, 'utf8')) as { tools: Record<string, { decision: string }> };
    edited.tools['run_shell']!.decision = 'allow';
    writeFileSync(policy, JSON.stringify(edited));
    const resumed = await runCli(['run', suite, '--out', out, '--no-html', '--policy', policy, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toMatch(/policy: .*\(sha256 ([0-9a-f]{12})\) → .*\(sha256 (?!\1)[0-9a-f]{12}\)/);
  });

  it('a journal without run-settings.json (an older tracegate) still resumes', async () => {
    const suite = policySuite(2);
    const out = tempDir();
    expect((await runCli(['run', suite, '--out', out, '--no-html'])).code).toBe(0);
    const { rmSync } = await import('node:fs');
    rmSync(path.join(out, 'run-settings.json'));
    const resumed = await runCli(['run', suite, '--out', out, '--no-html', '--resume', '--timeout', '9000']);
    expect(resumed.code, resumed.stderr).toBe(0);
    // …and records the settings it resumed with, so the next resume is checked.
    expect(JSON.parse(readFileSync(path.join(out, 'run-settings.json'), 'utf8')).settings.timeout_ms).toBe('9000');
  });

  it('compare --resume checks both variants before A runs', async () => {
    const out = tempDir();
    const args = ['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--out', out, '--no-html', '-q'];
    const first = await runCli(args);
    expect([0, 1], first.stderr).toContain(first.code);
    const journalA = readFileSync(path.join(out, 'a', 'results.jsonl'), 'utf8');
    const changed = await runCli([...args, '--resume', '--max-steps', '3']);
    expect(changed.code, changed.stderr).toBe(2);
    expect(changed.stderr).toContain('max_steps: default (10) → 3');
    expect(changed.stderr).not.toMatch(/variant A/);
    expect(readFileSync(path.join(out, 'a', 'results.jsonl'), 'utf8')).toBe(journalA);
    const same = await runCli([...args, '--resume']);
    expect(same.code, same.stderr).toBe(first.code);
  });
});
