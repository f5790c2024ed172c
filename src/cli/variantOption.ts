import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HarnessSettings } from '../../harness/index.js';
import { VariantSchema } from '../schema/variant.js';
import { CliError, EXIT } from './exitCodes.js';

export interface LoadedVariant {
  name: string;
  file: string;
  settings: { model: string | undefined; harness: Partial<HarnessSettings> };
  policy: string | undefined;
  cassettes: string | undefined;
}

/** Reads a variant file; its paths are relative to the file. Errors name file and field (exit 2). */
export function loadVariant(file: string): LoadedVariant {
  if (!existsSync(file)) throw new CliError(`${file}: variant file not found`, EXIT.BAD_INPUT);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(`${file}: not valid JSON: ${(error as Error).message}`, EXIT.BAD_INPUT);
  }
  const parsed = VariantSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue?.path.join('.') || '(root)';
    throw new CliError(`${file}: field ${field}: ${issue?.code === 'unrecognized_keys' ? 'unknown field' : issue?.message}`, EXIT.BAD_INPUT);
  }
  const v = parsed.data;
  const dir = path.dirname(path.resolve(file));
  const harness: Partial<HarnessSettings> = {};
  if (v.system_prompt !== undefined) harness.systemPrompt = v.system_prompt;
  if (v.tool_descriptions !== undefined) harness.toolDescriptions = v.tool_descriptions;
  if (v.tool_parameter_descriptions !== undefined) harness.toolParameterDescriptions = v.tool_parameter_descriptions;
  if (v.temperature !== undefined) harness.temperature = v.temperature;
  if (v.max_steps !== undefined) harness.maxSteps = v.max_steps;
  if (v.compression_threshold !== undefined) harness.compressionThreshold = v.compression_threshold;
  const relative = (p: string | undefined) => (p === undefined ? undefined : path.relative(process.cwd(), path.resolve(dir, p)) || '.');
  return {
    name: v.name,
    file: path.relative(process.cwd(), file) || file,
    settings: { model: v.model, harness },
    policy: relative(v.policy),
    cassettes: relative(v.cassettes),
  };
}
