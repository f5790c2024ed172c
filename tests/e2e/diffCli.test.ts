import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { makeReport } from '../helpers/reportBuilder.js';

function reports() {
  const dir = tempDir();
  const before = makeReport([{ id: 'a', trials: 'ppp' }, { id: 'b', trials: 'ppp' }]);
  const after = makeReport([{ id: 'a', trials: 'ppf' }, { id: 'b', trials: 'pfp' }]);
  mkdirSync(path.join(dir, 'run'));
  writeFileSync(path.join(dir, 'run', 'report.json'), JSON.stringify(after));
  writeFileSync(path.join(dir, 'base.json'), JSON.stringify(before));
  return { dir, report: path.join(dir, 'run', 'report.json'), baseline: path.join(dir, 'base.json') };
}

describe('tracegate diff', () => {
  it('--out to a folder that does not exist creates it and writes the report there', async () => {
    const { dir, report, baseline } = reports();
    const out = path.join(dir, 'deep', 'new', 'folder');
    const result = await runCli(['diff', report, baseline, '--out', out, '--no-html', '--significance']);
    expect(result.code, result.stderr).toBe(0);
    const written = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(written.diff.significance).toMatchObject({ verdict: 'inconclusive', method: 'stratified_exact' });
    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(summary).toMatch(/Why this test: several or unequal judged trials per task: exact stratified permutation test/);
    expect(summary).toMatch(/\*\*Weak comparison:\*\*\n\n- only 2 paired task\(s\)\n- no outcome of these 2 informative task\(s\) could reach p &lt; 0.05/);
    expect(result.stdout).toMatch(/weak comparison/);
  });

  it('--out that cannot be a folder fails with exit 2 and writes nothing', async () => {
    const { dir, report, baseline } = reports();
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'x');
    const result = await runCli(['diff', report, baseline, '--out', file, '--no-html']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--out .*a-file: cannot write there/);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('takes the baseline as the argument or as --baseline, and refuses two different ones', async () => {
    const { dir, report, baseline } = reports();
    const byFlag = await runCli(['diff', report, '--baseline', baseline, '--out', path.join(dir, 'o1'), '--no-html', '--significance']);
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'o1', 'report.json'), 'utf8')).diff.baseline.file).toMatch(/base\.json$/);
    const other = path.join(dir, 'other.json');
    writeFileSync(other, readFileSync(baseline));
    const both = await runCli(['diff', report, baseline, '-b', other, '--out', path.join(dir, 'o2'), '--no-html']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/two baselines given/);
    expect(existsSync(path.join(dir, 'o2'))).toBe(false);
    const none = await runCli(['diff', report]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/diff needs a baseline/);
  });
});
