import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideShell, loadPolicy } from '../../harness/index.js';
import { ShellRuleSchema } from '../../src/schema/policy.js';
import { SuiteHeaderSchema } from '../../src/schema/task.js';
import { ROOT } from '../helpers/cli.js';

const doc = readFileSync(path.join(ROOT, 'docs/harness.md'), 'utf8');
const jsonBlocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as unknown);

describe('docs/harness.md', () => {
  it('its policy rules and suite header are valid as written', () => {
    expect(jsonBlocks).toHaveLength(2);
    for (const rule of jsonBlocks[0] as unknown[]) expect(ShellRuleSchema.safeParse(rule).success).toBe(true);
    expect(SuiteHeaderSchema.safeParse(jsonBlocks[1]).success).toBe(true);
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
