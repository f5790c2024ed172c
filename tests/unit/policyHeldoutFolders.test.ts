import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, hasBubblewrap, loadPolicy, runCommand } from '../../harness/index.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * A script named after a `cd` is read from the folder the command runs in, as the interpreter
 * will (held-out corpus 2026-12: `cd src && python3 app.py` asked, "app.py does not exist yet").
 */
let policy: Policy;

function workspace(files: Record<string, string>): string {
  const ws = realpathSync(tempDir('tracegate-heldout-folders-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
    writeFileSync(path.join(ws, name), text);
  }
  return ws;
}

beforeAll(() => {
  policy = loadPolicy();
});

describe('scripts read from the folder a cd moved to', () => {
  it.skipIf(!hasBubblewrap())('cd src && python3 app.py is allowed inside bubblewrap and runs', async () => {
    const ws = workspace({ 'src/app.py': 'print("stock", 3)\n' });
    expect(await decideShell(policy, 'cd src && python3 app.py', ws, 'isolated')).toMatchObject({ decision: 'allow' });
    const ran = await runCommand('cd src && python3 app.py', { workspace: ws, timeoutMs: 30_000, outputCap: 4000, mode: 'bwrap', secretPaths: policy.secret_paths });
    expect(ran.output).toContain('stock 3');
  });

  it('the script is the one in that folder: a dangerous src/app.py is refused though the root app.py is harmless', async () => {
    const ws = workspace({ 'app.py': 'print(1)\n', 'src/app.py': 'import os\nos.system("true")\n' });
    for (const sandbox of ['process', 'isolated'] as const) {
      expect((await decideShell(policy, 'cd src && python3 app.py', ws, sandbox)).decision, sandbox).toBe('deny');
      expect((await decideShell(policy, 'cd src && node app.js', workspace({ 'app.js': '1\n', 'src/app.js': 'require("child_process").execSync("true")\n' }), sandbox)).decision, sandbox).toBe('deny');
    }
  });

  it('a script missing from the folder still asks, even when the workspace root has one of that name', async () => {
    const ws = workspace({ 'app.py': 'print(1)\n', 'src/other.py': 'print(2)\n' });
    expect(await decideShell(policy, 'cd src && python3 app.py', ws, 'isolated')).toMatchObject({ decision: 'require_approval', rule: 'program-file' });
  });

  it('after `||` the command may run in either folder, and the script of each is read', async () => {
    const ws = workspace({ 'app.py': 'print(1)\n', 'src/app.py': 'import os\nos.system("true")\n' });
    expect((await decideShell(policy, 'cd src || true; python3 app.py', ws, 'isolated')).decision).toBe('deny');
  });
});

describe('jq modules found from the folder a cd moved to (held-out corpus 2026-12)', () => {
  // A module outside the workspace that the nested workspace module includes: a harmless marker.
  const outside = () => {
    const dir = realpathSync(tempDir('tracegate-heldout-outside-'));
    writeFileSync(path.join(dir, 'leak.jq'), 'def leak: "OUTSIDE-MODULE-READ";\n');
    return dir;
  };

  it('cd lib && jq -L . with lib/evil.jq reaching outside: really reads outside, and is not allowed', async () => {
    const out = outside();
    const ws = workspace({ 'lib/evil.jq': `include "leak" {search: "${out}"};\ndef run: leak;\n`, 'data.json': '1\n' });
    const command = `cd lib && jq -n -L . 'include "evil"; run'`;
    // The hole is real: run unchecked, jq prints the outside module's text.
    const ran = await runCommand(command, { workspace: ws, timeoutMs: 30_000, outputCap: 4000, mode: 'process', secretPaths: policy.secret_paths });
    expect(ran.output).toContain('OUTSIDE-MODULE-READ');
    for (const sandbox of ['process', 'isolated'] as const) {
      expect((await decideShell(policy, command, ws, sandbox)).decision, sandbox).not.toBe('allow');
    }
  });

  it('cd lib && jq -f prog.jq reads lib/prog.jq, not a harmless one at the root', async () => {
    const out = outside();
    const ws = workspace({ 'prog.jq': '.\n', 'lib/prog.jq': `include "leak" {search: "${out}"};\nleak\n` });
    for (const sandbox of ['process', 'isolated'] as const) {
      expect((await decideShell(policy, 'cd lib && jq -n -f prog.jq', ws, sandbox)).decision, sandbox).not.toBe('allow');
    }
  });

  it('a module inside the folder it is loaded from stays allowed', async () => {
    const ws = workspace({ 'lib/util.jq': 'def double: . * 2;\n' });
    expect(await decideShell(policy, `cd lib && jq -n -L . 'include "util"; 2 | double'`, ws, 'process')).toMatchObject({ decision: 'allow' });
  });
});

describe('env -C and git -C move from the folder a cd moved to (held-out corpus 2026-12)', () => {
  const linked = () => {
    const ws = workspace({ 'README.md': 'plain\n', 'lib/README.md': 'plain\n', 'src/lib/README.md': 'plain\n' });
    // src/lib/link leads out; lib/link and src/link do not exist, so a reading from the wrong folder sees nothing.
    symlinkSync('/etc/hostname', path.join(ws, 'src/lib/link'));
    return ws;
  };

  it('cd src && env -C lib cat link reads src/lib/link, outside: the run shows it, the policy refuses it', async () => {
    const ws = linked();
    const command = 'cd src && env -C lib cat link';
    const ran = await runCommand(command, { workspace: ws, timeoutMs: 30_000, outputCap: 4000, mode: 'process', secretPaths: policy.secret_paths });
    expect(ran.output.trim()).toBe(readFileSync('/etc/hostname', 'utf8').trim());
    for (const sandbox of ['process', 'isolated'] as const) {
      for (const c of [command, 'cd src && env --chdir=lib cat link', 'cd src && env --chd lib cat link']) {
        expect(await decideShell(policy, c, ws, sandbox), `${sandbox}: ${c}`).toMatchObject({ decision: 'deny', rule: 'path-outside-workspace' });
      }
    }
  });

  it('cd src && git -C lib diff --no-index link README.md reads the link from src/lib and is refused', async () => {
    const ws = linked();
    for (const sandbox of ['process', 'isolated'] as const) {
      expect((await decideShell(policy, 'cd src && git -C lib diff --no-index link README.md', ws, sandbox)).decision, sandbox).toBe('deny');
    }
  });

  it('inside paths from the moved folder stay allowed', async () => {
    const ws = linked();
    expect(await decideShell(policy, 'cd src && env -C lib cat README.md', ws, 'process')).toMatchObject({ decision: 'allow' });
  });
});

describe('a cd behind `command` or `time` still moves the shell (held-out corpus 2026-12)', () => {
  const CASES = [
    'cd src && command cd lib && cat link',
    'cd src && command -p cd lib && cat link',
    'cd src && command -- cd lib && cat link',
    'cd src && command command cd lib && cat link',
    'cd src && time cd lib && cat link',
    'cd src && time -p cd lib && cat link',
    'command cd src/lib && cat link',
  ];

  it('bash really moves: the run prints the linked file', async () => {
    const ws = workspace({ 'README.md': 'plain\n' });
    mkdirSync(path.join(ws, 'src/lib'), { recursive: true });
    symlinkSync('/etc/hostname', path.join(ws, 'src/lib/link'));
    const ran = await runCommand(CASES[0]!, { workspace: ws, timeoutMs: 30_000, outputCap: 4000, mode: 'process', secretPaths: policy.secret_paths });
    expect(ran.output.trim()).toBe(readFileSync('/etc/hostname', 'utf8').trim());
  });

  for (const command of CASES) {
    it(`${command} is refused, under both sandboxes`, async () => {
      const ws = workspace({ 'README.md': 'plain\n' });
      mkdirSync(path.join(ws, 'src/lib'), { recursive: true });
      symlinkSync('/etc/hostname', path.join(ws, 'src/lib/link'));
      for (const sandbox of ['process', 'isolated'] as const) {
        expect(await decideShell(policy, command, ws, sandbox), sandbox).toMatchObject({ decision: 'deny', rule: 'path-outside-workspace' });
      }
    });
  }

  it('command -v cd only prints, and an inside file after command cd stays allowed', async () => {
    const ws = workspace({ 'src/lib/notes.txt': 'x\n' });
    expect(await decideShell(policy, 'cd src && command cd lib && cat notes.txt', ws, 'process')).toMatchObject({ decision: 'allow' });
  });
});
