import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { PolicySchema, type Policy } from '../../src/schema/policy.js';

export class PolicyFileError extends Error {
  readonly code = 'POLICY_INVALID';
}

/** The shipped default policy, documented in the README. */
export function defaultPolicyPath(): string {
  // Source and compiled builds sit at the same depth below the package root.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const fromSource = path.resolve(here, 'default-policy.json');
  const fromDist = path.resolve(here, '../../../harness/policy/default-policy.json');
  return here.includes(`${path.sep}dist${path.sep}`) ? fromDist : fromSource;
}

export function loadPolicy(file: string = defaultPolicyPath()): Policy {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new PolicyFileError(`${file}: ${(error as Error).message}`);
  }
  const parsed = PolicySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PolicyFileError(`${file}: field ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  for (const rule of parsed.data.shell.rules) {
    if (rule.when_args_match === undefined) continue;
    try {
      new RegExp(rule.when_args_match);
    } catch (error) {
      throw new PolicyFileError(`${file}: rule ${rule.id}: when_args_match: ${(error as Error).message}`);
    }
  }
  return parsed.data;
}
