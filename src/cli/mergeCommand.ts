import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { readReport } from '../baseline/baselineFile.js';
import { TRACES_DIR } from '../runner/executeRun.js';
import { mergeShards, MergeError, type ShardOutput } from '../report/mergeShards.js';
import { copyFileAtomicSync } from '../files/atomicWrite.js';
import { createRedactor } from '../schema/redact.js';
import { CliError, EXIT, exitCodesHelp } from './exitCodes.js';
import { addGateOptions, finishReport, loadGateInputs, type GateFlags } from './finishReport.js';
import { ensureWritableDir } from './outputDir.js';
import { checkBaselineShares } from '../baseline/baselineOverlap.js';

type Handle = (work: () => Promise<number>) => Promise<void>;

/** Copies every trace the merged report names into `<out>/traces`, so the output folder stands alone. */
function copyTraces(shards: ShardOutput[], outDir: string): void {
  mkdirSync(path.join(outDir, TRACES_DIR), { recursive: true });
  for (const { dir, report } of shards) {
    if (path.resolve(dir) === outDir) continue;
    for (const task of report.tasks) {
      for (const trial of task.trials) {
        if (!trial.trace_file) continue;
        const from = path.join(dir, trial.trace_file);
        if (existsSync(from)) copyFileAtomicSync(from, path.join(outDir, trial.trace_file));
      }
    }
  }
}

export function registerMerge(program: Command, handle: Handle): void {
  const command = program
    .command('merge')
    .description('join the output folders of `run --shard i/n` jobs into one report, then diff it and apply the gate')
    .argument('<dir...>', 'output folders of the shard runs (each with its report.json and traces/)')
    .requiredOption('-o, --out <dir>', 'folder for the merged report.json, report.html, junit.xml, summary.md and traces/');
  addGateOptions(command);
  command.addHelpText(
    'after',
    `
Every shard 1..n of one run must be given once, all from the same suites (sha256) and settings;
anything else is refused with exit 2. The merged report is what one unsharded run would have
written, apart from timings. ${exitCodesHelp([0, 1, 2, 3], { 3: 'could not run (a shard was interrupted, or every trial errored)' })}`,
  );
  command.action(async (dirs: string[], flags: GateFlags & { out: string }) =>
    handle(async () => {
      const gateInputs = loadGateInputs(flags);
      const shards = dirs.map((dir) => ({ dir, report: readReport(path.join(dir, 'report.json')) }));
      let merged;
      try {
        merged = mergeShards(shards, randomUUID());
      } catch (error) {
        if (error instanceof MergeError) throw new CliError(error.message, EXIT.BAD_INPUT);
        throw error;
      }
      checkBaselineShares(merged.tasks, gateInputs.baseline);
      const outDir = path.resolve(flags.out);
      ensureWritableDir(outDir);
      copyTraces(shards, outDir);
      process.stderr.write(`merged ${shards.length} shards: ${merged.tasks.length} tasks, ${merged.summary.trials} trials\n`);
      // A shard's report carries its own diff and gate; the merged one gets fresh ones.
      const { diff: _d, gate: _g, ...report } = merged;
      return finishReport(report, outDir, flags, gateInputs, createRedactor());
    }),
  );
}
