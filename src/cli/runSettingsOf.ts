import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Adapter } from '../schema/adapter.js';
import { readRunSettings, settingsChanges, type RunSettings } from '../runner/runSettings.js';
import { EXIT } from './exitCodes.js';
import { CliError } from './errors.js';
import type { ResolvedRun } from './resolveRun.js';

/** A file as a label: its absolute path and the start of its sha256, so an edit in place counts as a change. */
function fileLabel(file: string): string {
  const full = path.resolve(file);
  if (!existsSync(full) || !statSync(full).isFile()) return full;
  return `${full} (sha256 ${createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 12)})`;
}

/** The settings that decide a trial's outcome, projected from the resolved run (recorded in run-settings.json). */
export function runSettingsOf(run: ResolvedRun, adapter: Adapter): RunSettings {
  const plan = run.system;
  const m = adapter.model;
  const policyFile = plan.adapter === 'harness' ? path.resolve(adapter.policy) : null;
  return {
    adapter: adapter.name,
    agent: plan.adapter === 'harness' ? 'none (the reference harness)' : run.agent.replace(/^--agent-(cmd|url) /, ''),
    model: `${m.provider}/${m.model}`,
    base_url: m.base_url ?? 'none',
    cassettes: plan.model.kind === 'cassettes' ? path.resolve(plan.model.dir) : 'none',
    policy: policyFile ? fileLabel(policyFile) : adapter.policy,
    // What ran, not what was asked: `auto` is bubblewrap on one machine and a process group on another.
    sandbox: adapter.sandbox,
    variant: run.variant ? `${run.variant.name} ${fileLabel(run.variant.file)}` : 'none',
    max_steps: run.maxStepsFrom === 'default' ? `default (${run.maxSteps})` : String(run.maxSteps),
    timeout_ms: String(run.timeoutMs),
  };
}

/** --resume: refuse (exit 2, before any trial) when the journal in `outDir` was made under other settings. */
export function checkResumeSettings(outDir: string, settings: RunSettings, resume: boolean): void {
  if (!resume) return;
  const recorded = readRunSettings(outDir);
  if (!recorded) return;
  const changes = settingsChanges(recorded, settings);
  if (changes.length === 0) return;
  throw new CliError(
    `--resume: the trials in ${path.relative(process.cwd(), outDir) || '.'} ran with other settings, so their verdicts would not be of this run:\n  ${changes.join('\n  ')}\n` +
      'resume with the same settings, or run without --resume (a fresh run), or into another --out',
    EXIT.BAD_INPUT,
  );
}
