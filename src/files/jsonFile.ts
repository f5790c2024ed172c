import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { TracegateError } from '../schema/runError.js';

/**
 * Every stored file (policy, cassette, gate, variant, report, trace) is read the same way: found,
 * parsed, validated against its schema, and any problem named by file and field. Part of the
 * stored-file contract, so the harness and the platform share it.
 */
export class JsonFileError extends TracegateError {
  constructor(message: string) {
    super('FILE_INVALID', message);
  }
}

/** The first problem of a failed parse, as `field a.b: message` (unknown keys named as such). */
export function zodProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const at = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return `field ${issue.keys.map((k) => (at ? `${at}.${k}` : k)).join(', ')}: unknown field`;
  }
  return `field ${at || '(root)'}: ${issue.message}`;
}

/** The parsed JSON of a file, or a JsonFileError that names it. */
export function readJson(file: string, what: string): unknown {
  if (!existsSync(file)) throw new JsonFileError(`${file}: ${what} not found`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new JsonFileError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
}

export function readJsonFile<S extends z.ZodType>(file: string, schema: S, what: string): z.infer<S> {
  const parsed = schema.safeParse(readJson(file, what));
  if (!parsed.success) throw new JsonFileError(`${file}: ${zodProblem(parsed.error)}`);
  return parsed.data;
}
