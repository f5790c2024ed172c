import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../files/atomicWrite.js';
import { TracegateError } from '../schema/runError.js';

/**
 * run-settings.json beside results.jsonl: the settings that decide a trial's outcome (which agent,
 * model, cassettes, policy, sandbox, variant, limits), recorded when a run starts. `--resume` keeps
 * journaled trials only when these are unchanged; a journal without the file (an older tracegate)
 * is resumed as before.
 */
export const RUN_SETTINGS_FILE = 'run-settings.json';
const SCHEMA_VERSION = 'run-settings/v1';

/** Setting name (as the CLI flag reads) → its value as a label. Names are snake_case. */
export type RunSettings = Readonly<Record<string, string>>;

export function writeRunSettings(outDir: string, settings: RunSettings): void {
  writeFileAtomicSync(path.join(outDir, RUN_SETTINGS_FILE), JSON.stringify({ schema_version: SCHEMA_VERSION, settings }, null, 2) + '\n');
}

/** The recorded settings, or null when the folder has none (a fresh folder, or an older journal). */
export function readRunSettings(outDir: string): RunSettings | null {
  const file = path.join(outDir, RUN_SETTINGS_FILE);
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new TracegateError('BAD_INPUT', `${file}: not valid JSON (${(error as Error).message}); remove it, or run without --resume`);
  }
  const record = raw as { schema_version?: unknown; settings?: unknown } | null;
  if (record?.schema_version !== SCHEMA_VERSION || typeof record.settings !== 'object' || record.settings === null) {
    throw new TracegateError('BAD_INPUT', `${file}: field schema_version: expected ${SCHEMA_VERSION} with a settings object; remove it, or run without --resume`);
  }
  const settings: Record<string, string> = {};
  for (const [key, value] of Object.entries(record.settings)) settings[key] = String(value);
  return settings;
}

/** `name: old → new` for every setting that differs (a setting only one side knows counts too). */
export function settingsChanges(before: RunSettings, after: RunSettings): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys.filter((k) => before[k] !== after[k]).map((k) => `${k}: ${before[k] ?? '(not recorded)'} → ${after[k] ?? '(not recorded)'}`);
}
