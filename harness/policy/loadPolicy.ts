import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { JsonFileError, readJsonFile } from '../../src/schema/jsonFile.js';
import { PolicySchema, type Policy } from '../../src/schema/policy.js';

/** The shipped default policy, documented in the README. */
export function defaultPolicyPath(): string {
  // Source and compiled builds sit at the same depth below the package root.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const fromSource = path.resolve(here, 'default-policy.json');
  const fromDist = path.resolve(here, '../../../harness/policy/default-policy.json');
  return here.includes(`${path.sep}dist${path.sep}`) ? fromDist : fromSource;
}

export function loadPolicy(file: string = defaultPolicyPath()): Policy {
  const policy = readJsonFile(file, PolicySchema, 'policy file');
  for (const rule of policy.shell.rules) {
    if (rule.when_args_match === undefined) continue;
    try {
      new RegExp(rule.when_args_match);
    } catch (error) {
      throw new JsonFileError(`${file}: rule ${rule.id}: when_args_match: ${(error as Error).message}`);
    }
  }
  return policy;
}
