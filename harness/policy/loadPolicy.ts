import { readFileSync } from 'node:fs';
import path from 'node:path';
import { JsonFileError, readJson, zodProblem } from '../../src/files/jsonFile.js';
import { packageFile } from '../../src/files/packageFiles.js';
import { PolicySchema, type Policy } from '../../src/schema/policy.js';
import { lineOfJsonString, regexProblem } from '../../src/schema/safeRegex.js';

/** The shipped default policy, documented in the README. */
export function defaultPolicyPath(): string {
  return packageFile('harness', 'policy', 'default-policy.json');
}

export function loadPolicy(file: string = defaultPolicyPath()): Policy {
  const parsed = PolicySchema.safeParse(resolveExtends(file, readJson(file, 'policy file'), 0));
  if (!parsed.success) throw new JsonFileError(`${file}: ${zodProblem(parsed.error)}`);
  const policy = parsed.data;
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

/**
 * `"extends": "default"` (or a path relative to the file): the other policy, with this file's
 * top-level fields replacing its own, except `tools`, which add to and override the base's by name.
 * A suite's policy then says only what it changes (suites/mcp/policy.json names two MCP tools).
 */
function resolveExtends(file: string, json: unknown, depth: number): unknown {
  if (typeof json !== 'object' || json === null || !('extends' in json)) return json;
  const { extends: base, ...own } = json as Record<string, unknown>;
  if (typeof base !== 'string') throw new JsonFileError(`${file}: field extends: a policy file path or "default"`);
  if (depth >= 4) throw new JsonFileError(`${file}: field extends: more than 4 levels`);
  const baseFile = base === 'default' ? defaultPolicyPath() : path.resolve(path.dirname(file), base);
  const resolved = resolveExtends(baseFile, readJson(baseFile, 'policy file (extends)'), depth + 1) as Record<string, unknown>;
  const tools = { ...(resolved['tools'] as Record<string, unknown> | undefined), ...(own['tools'] as Record<string, unknown> | undefined) };
  return { ...resolved, ...own, tools };
}
