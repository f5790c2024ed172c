import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideShell, loadPolicy } from '../../harness/index.js';
import { ShellRuleSchema } from '../../src/schema/policy.js';
import { SuiteHeaderSchema } from '../../src/schema/task.js';
import { ROOT } from '../helpers/cli.js';

const doc = readFileSync(path.join(ROOT, 'docs/harness.md'), 'utf8');
const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
/** Whole documents: the policy rules, the suite header, the tool-limits policy. */
const jsonBlocks = blocks.filter((b) => !b.startsWith('"')).map((b) => JSON.parse(b) as unknown);
/** Policy fields shown alone (`"limits": {…}`): valid as fields of a policy that extends the default. */
const policyFields = blocks.filter((b) => b.startsWith('"')).map((b) => JSON.parse(`{${b}}`) as Record<string, unknown>);

describe('docs/harness.md', () => {
  it('its policy rules, suite header and tool-limits policy are valid as written', () => {
    expect(jsonBlocks).toHaveLength(3);
    for (const rule of jsonBlocks[0] as unknown[]) expect(ShellRuleSchema.safeParse(rule).success).toBe(true);
    expect(SuiteHeaderSchema.safeParse(jsonBlocks[1]).success).toBe(true);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'harness-docs-')), 'policy.json');
    writeFileSync(file, JSON.stringify(jsonBlocks[2]));
    expect(loadPolicy(file)).toMatchObject({ shell_timeout_ms: 60_000, output_cap: 20_000 });
  });

  it('its policy fields shown alone load as part of a policy', () => {
    expect(policyFields.length).toBeGreaterThan(0);
    for (const fields of policyFields) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'harness-docs-')), 'policy.json');
      writeFileSync(file, JSON.stringify({ schema_version: 'policy/v1', extends: 'default', ...fields }));
      expect(loadPolicy(file)).toMatchObject(fields);
    }
  });

  it('its table of default decisions holds', async () => {
    const policy = loadPolicy();
    const ws = ROOT;
    const table: Array<[string, string, string]> = [
      ["sed -n '1p' README.md", 'allow', 'allow'],
      ['git log --oneline', 'allow', 'allow'],
      ['git commit -m x', 'allow', 'allow'],
      ['git reset --hard HEAD', 'require_approval', 'require_approval'],
      ['python3 --version', 'allow', 'allow'],
      ['git push', 'deny', 'deny'],
      ['python3 -m pytest', 'require_approval', 'allow'],
      ['npm test', 'require_approval', 'allow'],
    ];
    for (const [command, process, isolated] of table) {
      expect((await decideShell(policy, command, ws, 'process')).decision, command).toBe(process);
      expect((await decideShell(policy, command, ws, 'isolated')).decision, command).toBe(isolated);
    }
  });
});
