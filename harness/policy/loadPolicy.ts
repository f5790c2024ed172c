import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { JsonFileError, readJsonFile } from '../../src/schema/jsonFile.js';
import { PolicySchema, type Policy } from '../../src/schema/policy.js';
import { lineOfJsonString, regexProblem } from '../../src/schema/safeRegex.js';

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
  policy.shell.rules.forEach((rule, i) => {
    if (rule.when_args_match === undefined) return;
    const problem = regexProblem(rule.when_args_match);
    if (problem) {
      const line = lineOfJsonString(readFileSync(file, 'utf8'), rule.when_args_match);
      throw new JsonFileError(`${file}${line ? `:${line}` : ''}: field shell.rules.${i}.when_args_match (rule ${rule.id}): ${problem}`);
    }
  });
  return policy;
}
