import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, hasBubblewrap, loadPolicy, runCommand, type SandboxMode } from '../../harness/index.js';
import type { SandboxKind } from '../../harness/policy/decision.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * bash expands a glob before the program parses its options: `sort *` in a folder holding files
 * named `--compress-program=sh` and `--buffer-size=10k` runs chunks of the data through `sh`. The
 * hole is first shown for real (a marker file appears), then the policy's reading of the same
 * command: a glob in option position that expands to a dash name asks.
 */
let policy: Policy;
const SANDBOXES: SandboxKind[] = ['process', 'isolated'];
const MODES: SandboxMode[] = hasBubblewrap() ? ['process', 'bwrap'] : ['process'];

function planted(): string {
  const ws = realpathSync(tempDir('tracegate-glob-opt-'));
  writeFileSync(path.join(ws, 'data.txt'), 'echo GLOB-OPTION-MARKER > marker.txt\n'.repeat(3000));
  writeFileSync(path.join(ws, '--compress-program=sh'), '');
  writeFileSync(path.join(ws, '--buffer-size=10k'), '');
  return ws;
}

beforeAll(() => {
  policy = loadPolicy();
});

describe('a glob that expands to an option-named file', () => {
  for (const mode of MODES) {
    it(`${mode}: sort * runs the planted compress program when nothing stops it`, async () => {
      const ws = planted();
      await runCommand('sort * > /dev/null 2>&1; true', { workspace: ws, timeoutMs: 60_000, outputCap: 8000, mode });
      expect(existsSync(path.join(ws, 'marker.txt'))).toBe(true);
    });
  }

  for (const sandbox of SANDBOXES) {
    it(`${sandbox}: asks when a glob in option position matches a dash name now or one the command creates`, async () => {
      const ws = planted();
      for (const command of ['sort *', 'sort -u *', 'timeout 5 sort *', 'sort -k 1 *', 'grep -e -- *', 'cat [-]*', 'wc -l ?-*', 'sort *=sh data.txt']) {
        const d = await decideShell(policy, command, ws, sandbox);
        expect(d.decision, `${command}: ${d.reason}`).toBe('require_approval');
        expect(d.rule).toBe('glob-as-option');
      }
      const clean = realpathSync(tempDir('tracegate-glob-clean-'));
      writeFileSync(path.join(clean, 'a.txt'), 'a\n');
      for (const command of ['touch -- --compress-program=sh && sort *', 'touch ./--output=x; ls *', 'echo x > -n; cat *']) {
        const d = await decideShell(policy, command, clean, sandbox);
        expect(d.decision, `${command}: ${d.reason}`).not.toBe('allow');
      }
    });

    it(`${sandbox}: globs that cannot become options stay allowed`, async () => {
      const ws = planted();
      for (const command of ['sort -- *', 'sort ./*', 'sort *.txt', 'wc -l d*', 'echo *', 'ls sub*/ 2>/dev/null || true']) {
        const d = await decideShell(policy, command, ws, sandbox);
        expect(d.decision, `${command}: ${d.reason}`).toBe('allow');
      }
      const clean = realpathSync(tempDir('tracegate-glob-clean-'));
      writeFileSync(path.join(clean, 'a.txt'), 'a\n');
      for (const command of ['ls -la *', 'sort *', 'grep -n TODO *']) {
        const d = await decideShell(policy, command, clean, sandbox);
        expect(d.decision, `${command}: ${d.reason}`).toBe('allow');
      }
    });
  }
});
