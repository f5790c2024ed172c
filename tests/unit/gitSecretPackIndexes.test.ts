import { spawnSync } from 'node:child_process';
import { readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBubblewrap, loadPolicy, runCommand } from '../../harness/index.js';
import { tempDir } from '../helpers/cli.js';

/** A marker standing for a secret committed in `.env`: harmless, and easy to find in any output. */
const MARKER = 'PACK-INDEX-MARKER-51c9';

/** A repository whose secret sits in a pack described by a bitmap, a reverse index or a multi-pack-index. */
function packedRepo(layout: 'bitmap' | 'midx'): string {
  const dir = realpathSync(tempDir('tracegate-secret-packs-'));
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'pack.compression=0', '-c', 'core.compression=0', ...args], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q', '.');
  writeFileSync(path.join(dir, '.env'), `TOKEN=${MARKER}\n`);
  writeFileSync(path.join(dir, 'a.txt'), 'one\n');
  git('add', '.');
  git('commit', '-qm', 'first');
  if (layout === 'bitmap') git('-c', 'pack.writeReverseIndex=true', 'repack', '-q', '-a', '-d', '-b');
  else {
    git('repack', '-q', '-a', '-d');
    writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
    git('commit', '-qam', 'second');
    // A second pack, and a multi-pack-index (with its bitmap) over both.
    git('repack', '-q', '-d');
    git('multi-pack-index', 'write', '--bitmap');
  }
  writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n');
  return dir;
}

describe.skipIf(!hasBubblewrap())('under bubblewrap, the indexes of a pack holding a secret are masked with it', () => {
  const secretPaths = loadPolicy().secret_paths;
  const run = (command: string, dir: string, paths: readonly string[] = secretPaths) => runCommand(command, { workspace: dir, timeoutMs: 30_000, outputCap: 200_000, mode: 'bwrap', secretPaths: paths });

  it.each(['bitmap', 'midx'] as const)('%s: the marker is not in any pack file, and git answers as before', async (layout) => {
    const dir = packedRepo(layout);
    const files = readdirSync(path.join(dir, '.git/objects/pack'));
    expect(files.some((f) => f.endsWith(layout === 'bitmap' ? '.bitmap' : 'multi-pack-index'))).toBe(true);
    const reader = 'cat .git/objects/pack/* 2>/dev/null | grep -a -c PACK-INDEX || true';
    // The hole is real: without masking (no secret paths), the pack holds the marker as plain bytes.
    expect((await run(reader, dir, [])).output).toMatch(/^[1-9]/m);
    expect((await run(reader, dir)).output.trim()).toBe('0');
    // Everyday git reads through the masks without a word of complaint; only a walk of every object
    // (`rev-list --objects --all`, `fsck`) would meet the masked blob, and says it is missing.
    for (const command of ['git status --short', 'git log --oneline --stat', 'git log -p', 'git diff', 'git show HEAD:a.txt', 'git cat-file -p HEAD', 'git blame a.txt', 'git count-objects -v']) {
      const result = await run(command, dir);
      expect(result.exitCode, `${command}: ${result.output}`).toBe(0);
      expect(result.output, command).not.toContain(MARKER);
      expect(result.output, command).not.toMatch(/error|fatal|warning|corrupt|permission/i);
    }
    expect((await run('git rev-list --objects --all', dir)).output).not.toContain(MARKER);
    expect((await run('git diff', dir)).output).toContain('+three');
    expect((await run('git log -p', dir)).output).toContain('+one');
  });
});
