import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type CliResult } from '../helpers/cli.js';

/** compare of the demo variants: B's vague tool descriptions make three tool-argument failures. */
describe('triage where people look: compare of the demo variants', () => {
  let out: string;
  let result: CliResult;
  beforeAll(async () => {
    out = tempDir();
    result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--out', out, '-q']);
  }, 120_000);

  it('prints the failure-reason and failure-layer distributions, baseline → current, regressed first, in the terminal', () => {
    expect(result.code).toBe(1);
    const reasons = result.stdout.slice(result.stdout.indexOf('failure reasons'));
    expect(reasons).toMatch(/failure reasons[^\n]*baseline → current/);
    expect(result.stdout).toContain('INVALID_ARGUMENTS 0 → 3 (+3)');
    expect(result.stdout).toContain('FILE_NOT_FOUND_UNRECOVERED 1 → 1');
    expect(result.stdout).toContain('tool 0 → 3 (+3)');
    // The reason that grew comes before the ones that held.
    expect(reasons.indexOf('INVALID_ARGUMENTS 0 → 3')).toBeLessThan(reasons.indexOf('FILE_NOT_FOUND_UNRECOVERED 1 → 1'));
  });

  it('writes the same distributions into summary.md', () => {
    const md = readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(md).toContain('INVALID_ARGUMENTS 0 → 3 (+3)');
    expect(md).toContain('tool 0 → 3 (+3)');
    expect(md.indexOf('INVALID_ARGUMENTS 0 → 3')).toBeLessThan(md.indexOf('FILE_NOT_FOUND_UNRECOVERED 1 → 1'));
  });
});
