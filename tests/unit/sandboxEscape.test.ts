import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bwrapArgs, SecretScanError } from '../../harness/sandbox/bwrapArgs.js';
import { hasBubblewrap, runCommand } from '../../harness/index.js';
import { tempDir } from '../helpers/cli.js';

/**
 * Ways out of bubblewrap that do not depend on the policy's reading: under bubblewrap the policy
 * lets unread workspace code run (pytest, make, npm test), so the sandbox itself must hold.
 */
const run = (ws: string, command: string) => runCommand(command, { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode: 'bwrap', secretPaths: ['.env'] });

describe('bubblewrap drops every capability', () => {
  it('asks bubblewrap to drop them all', () => {
    const args = bwrapArgs(realpathSync(tempDir('tracegate-caps-')), []);
    expect(args.join(' ')).toContain('--cap-drop ALL');
  });

  it.skipIf(!hasBubblewrap())('no capability inside; as root, a secret\'s mask cannot be unmounted nor /etc remounted writable', async () => {
    const ws = realpathSync(tempDir('tracegate-caps-'));
    writeFileSync(path.join(ws, '.env'), 'TOKEN=MASKED-SECRET\n');
    const canary = `/etc/tracegate-escape-${path.basename(ws)}`;
    const result = await run(ws, `grep CapEff /proc/self/status; umount .env; cat .env; mount -o remount,rw,bind /etc && touch ${canary}; true`);
    try {
      expect(result.output).toMatch(/CapEff:\s+0+\s/);
      expect(result.output).not.toContain('MASKED-SECRET');
      expect(existsSync(canary)).toBe(false);
    } finally {
      rmSync(canary, { force: true });
    }
  });

  it.skipIf(!hasBubblewrap())('the parent\'s environment is out of reach through /proc', async () => {
    const ws = realpathSync(tempDir('tracegate-proc-'));
    process.env['TRACEGATE_TEST_PARENT_SECRET'] = 'PARENT-ENV-SECRET';
    try {
      const result = await run(ws, 'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; cat /proc/1/root/proc/*/environ 2>/dev/null; true');
      expect(result.output).not.toContain('PARENT-ENV-SECRET');
    } finally {
      delete process.env['TRACEGATE_TEST_PARENT_SECRET'];
    }
  });
});

describe('the secret scan fails closed', () => {
  /** A secret one folder down, behind a folder padded with files to exhaust a bounded walk. */
  function paddedWorkspace(): string {
    const ws = realpathSync(tempDir('tracegate-padded-'));
    mkdirSync(path.join(ws, 'config'));
    writeFileSync(path.join(ws, 'config/.env'), 'TOKEN=x\n');
    for (const dir of ['aa', 'zz']) {
      mkdirSync(path.join(ws, dir));
      for (let i = 0; i < 60; i++) writeFileSync(path.join(ws, dir, `f${i}`), '');
    }
    return ws;
  }

  it('masks a nested secret when the walk reads the whole workspace', () => {
    const ws = paddedWorkspace();
    const args = bwrapArgs(ws, ['.env'], 1000).join(' ');
    expect(args).toContain(`--ro-bind /dev/null ${ws}/config/.env`);
  });

  it('refuses to build the sandbox when the workspace has more entries than the walk reads', () => {
    const ws = paddedWorkspace();
    expect(() => bwrapArgs(ws, ['.env'], 100)).toThrow(SecretScanError);
  });
});
