import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { resolveSystem } from '../adapters/resolveSystem.js';
import type { Adapter } from '../schema/adapter.js';
import { readRunSettings, settingsChanges, type RunSettings } from '../runner/runSettings.js';
import { CliError, EXIT } from './exitCodes.js';
import type { LoadedVariant } from './variantOption.js';
import type { PreparedRun, RunFlags } from './runCommand.js';

const DEFAULT_MAX_STEPS = 10;

/** A file as a label: its absolute path and the start of its sha256, so an edit in place counts as a change. */
function fileLabel(file: string): string {
  const full = path.resolve(file);
  if (!existsSync(full) || !statSync(full).isFile()) return full;
  return `${full} (sha256 ${createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 12)})`;
}

/** The settings that decide a trial's outcome, as the run resolved them (recorded in run-settings.json). */
export function runSettingsOf(flags: RunFlags, variant: LoadedVariant | null, prepared: PreparedRun, adapter: Adapter): RunSettings {
  const plan = resolveSystem({ flags, env: process.env, suite: prepared.suiteDefaults, variant, policyTasksOnly: prepared.policyTasksOnly });
  const m = adapter.model;
  const policyFile = plan.adapter === 'harness' ? path.resolve(adapter.policy) : null;
  return {
    adapter: adapter.name,
    agent: flags.agentCmd ?? flags.agentUrl ?? 'none (the reference harness)',
    model: `${m.provider}/${m.model}`,
    base_url: m.base_url ?? 'none',
    cassettes: plan.model.kind === 'cassettes' ? path.resolve(plan.model.dir) : 'none',
    policy: policyFile ? fileLabel(policyFile) : adapter.policy,
    // What ran, not what was asked: `auto` is bubblewrap on one machine and a process group on another.
    sandbox: adapter.sandbox,
    variant: variant ? `${variant.name} ${fileLabel(variant.file)}` : 'none',
    max_steps: String(flags.maxSteps ?? `default (${DEFAULT_MAX_STEPS})`),
    timeout_ms: String(flags.timeout),
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
