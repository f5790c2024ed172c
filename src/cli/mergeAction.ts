/** What `merge` does once its flags are parsed (storedCommands.ts defines them). */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { readReport } from '../baseline/baselineFile.js';
import { TRACES_DIR } from '../runner/executeRun.js';
import { mergeShards, MergeError, type ShardOutput } from '../report/mergeShards.js';
import { copyFileAtomicSync } from '../files/atomicWrite.js';
import { createRedactor } from '../schema/redact.js';
import { EXIT } from './exitCodes.js';
import { CliError } from './errors.js';
import { finishReport, loadGateInputs } from './finishReport.js';
import type { GateFlags } from './gateOptions.js';
import { ensureWritableDir } from './outputDir.js';
import { checkBaselineShares } from '../baseline/baselineOverlap.js';

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

/** `tracegate merge`: the shard outputs of one run joined into one report (traces copied beside it), diffed and gated. */
export async function mergeCommand(dirs: string[], flags: GateFlags & { out: string }): Promise<number> {
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
}
