import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, loadPolicy } from '../../harness/index.js';
import type { SandboxKind } from '../../harness/policy/decision.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * The current folder tracked through `cd`: `cd src && ls && cd .. && pwd` never
 * leaves the workspace, so it is allowed; where bash's order does not make the folder certain, paths
 * are still read from every folder the line may be in. Each case is run by real bash first, in a
 * workspace whose parent holds OUTSIDE-MARK, to show what the command really reads.
 */
let policy: Policy;
let ws: string;
const SANDBOXES: SandboxKind[] = ['process', 'isolated'];

beforeAll(() => {
  policy = loadPolicy();
  const dir = realpathSync(tempDir('tracegate-cwd-'));
  writeFileSync(path.join(dir, 'x'), 'OUTSIDE-MARK\n');
  ws = path.join(dir, 'ws');
  for (const folder of ['src', 'tests', 'docs', 'real/deep']) mkdirSync(path.join(ws, folder), { recursive: true });
  writeFileSync(path.join(ws, 'x'), 'INSIDE\n');
  writeFileSync(path.join(ws, 'README.md'), 'readme\n');
  writeFileSync(path.join(ws, 'src/app.py'), 'print(1)\n');
  // bash's `cd ..` after `cd lnk` is logical (back to the workspace), the kernel's `..` physical.
  symlinkSync(path.join(ws, 'real/deep'), path.join(ws, 'lnk'));
});

const bash = (command: string) => spawnSync('bash', ['-c', command], { cwd: ws, encoding: 'utf8', timeout: 20_000, env: { PATH: '/usr/bin:/bin' } }).stdout;

describe('cd chains the shell makes certain are read from the folder they are in', () => {
  const ALLOWED = [
    'cd src && ls && cd .. && pwd',
    'cd src && cat ../README.md',
    'cd src; cat ../x',
    'cd src && cd ../tests && ls ../src',
    'cd src && ls; cd ..; cat README.md',
    'cd docs && cd .. && cat x',
    'cd ./src/ && grep -n print app.py ../README.md',
  ];
  for (const command of ALLOWED) {
    it(command, async () => {
      expect(bash(command)).not.toContain('OUTSIDE-MARK');
      for (const sandbox of SANDBOXES) {
        const decided = await decideShell(policy, command, ws, sandbox);
        expect(decided.decision, `${sandbox}: ${decided.rule} ${decided.reason}`).toBe('allow');
      }
    });
  }
});

describe('where the folder is not certain, every folder the line may be in is checked', () => {
  const REFUSED = [
    'false && cd src; cat ../x',
    'cd src || true; cat ../x',
    'test -d nope && cd src; cat ../x',
    '(cd src); cat ../x',
    'cd src & cat ../x',
    'if true; then cd src; fi; cat ../x',
    'cd nope; cat ../x',
    'cd src && cd ../.. && cat x',
    'cd lnk && cd ../.. && cat x',
    'cd src && cat ../../x',
  ];
  for (const command of REFUSED) {
    it(command, async () => {
      // What bash reads where the chain stops short, or goes where it says.
      const probe = command.includes('lnk') ? command : command.replace('cd src', 'cd nope 2>/dev/null');
      expect(bash(probe) + bash(command)).toContain('OUTSIDE-MARK');
      for (const sandbox of SANDBOXES) {
        const decided = await decideShell(policy, command, ws, sandbox);
        expect(decided, `${sandbox}: ${decided.reason}`).toMatchObject({ decision: 'deny', rule: 'path-outside-workspace' });
      }
    });
  }
});
