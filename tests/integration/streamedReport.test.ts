import { readFileSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishReport, loadGateInputs, artifactReporters } from '../../src/cli/finishReport.js';
import type { GateFlags } from '../../src/cli/gateOptions.js';
import { buildReport } from '../../src/report/buildReport.js';
import { Reporters } from '../../src/reporters/runAll.js';
import { JournalRows, reportRows } from '../../src/runner/reportFromJournal.js';
import { createRedactor } from '../../src/schema/redact.js';
import type { RunReport } from '../../src/schema/report.js';
import { loadSuites } from '../../src/suite/loadSuite.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';

const ARTIFACTS = ['report.json', 'junit.xml', 'summary.md', 'report.html'];

/**
 * A run of the demo suite holds its few rows; the same journal streamed (JournalRows, as a run of
 * more than HELD_ROWS tasks reads it) must give every artifact byte for byte.
 */
async function streamedAgain(out: string, flags: GateFlags): Promise<string> {
  const again = tempDir();
  // report.html embeds traces read from the folder beside it.
  symlinkSync(path.join(out, 'traces'), path.join(again, 'traces'));
  const written = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as RunReport;
  const tasks = loadSuites([path.join(ROOT, 'suites/demo.jsonl')]).flatMap((s) => s.tasks);
  const rows = reportRows(path.join(out, 'results.jsonl'), tasks, written.run.epochs, 0);
  expect(rows).toBeInstanceOf(JournalRows);
  const stdout = process.stdout.write;
  process.stdout.write = () => true;
  try {
    await finishReport(buildReport(written.run, rows), again, flags, loadGateInputs(flags), createRedactor(), new Reporters(artifactReporters(flags.html)));
  } finally {
    process.stdout.write = stdout;
  }
  return again;
}

describe('a report streamed from the journal', () => {
  it('writes the same artifacts, byte for byte, as the rows held in memory (two epochs, a must-pass tag)', async () => {
    const out = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--epochs', '2', '--must-pass-tag', 'recovery', '--out', out, '-q']);
    expect(run.stderr).not.toContain('reporter failed');
    const again = await streamedAgain(out, { html: true, mustPassTag: ['recovery'] });
    for (const file of ARTIFACTS) expect(readFileSync(path.join(again, file), 'utf8'), file).toBe(readFileSync(path.join(out, file), 'utf8'));
    // The rows' temporary file is gone once the artifacts are written.
    expect(readdirSync(again).sort()).toEqual([...ARTIFACTS, 'traces'].sort());
  }, 180_000);

  it('and against a baseline, where the diff holds the rows', async () => {
    const out = tempDir();
    await runCli(['run', 'suites/demo.jsonl', '--baseline', 'baselines/demo.json', '--out', out, '-q']);
    const again = await streamedAgain(out, { html: true, baseline: 'baselines/demo.json' });
    for (const file of ARTIFACTS) expect(readFileSync(path.join(again, file), 'utf8'), file).toBe(readFileSync(path.join(out, file), 'utf8'));
  }, 180_000);
});
