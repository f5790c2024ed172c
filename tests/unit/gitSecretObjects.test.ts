import { spawnSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBubblewrap, loadPolicy, runCommand } from '../../harness/index.js';
import { tempDir } from '../helpers/cli.js';

/** A marker standing for a secret committed in `.env`: harmless, and easy to find in any output. */
const MARKER = 'OBJECT-STORE-MARKER-7f3a';

function repoWithCommittedSecret(packed: boolean): string {
  const dir = realpathSync(tempDir('tracegate-secret-objects-'));
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q', '.');
  writeFileSync(path.join(dir, '.env'), `TOKEN=${MARKER}\n`);
  writeFileSync(path.join(dir, 'a.txt'), 'one\n');
  git('add', '.');
  git('commit', '-qm', 'first');
  writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n');
  git('commit', '-qam', 'second');
  // Uncompressed objects in a pack: the marker is plain bytes in the pack file.
  if (packed) git('-c', 'pack.compression=0', '-c', 'core.compression=0', 'gc', '-q');
  writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n');
  return dir;
}

const READ_LOOSE = `python3 -c "import glob, zlib; print(b''.join(zlib.decompress(open(f, 'rb').read()) for f in glob.glob('.git/objects/??/*')))"`;
const READ_PACKS = 'cat .git/objects/pack/*.pack | grep -a -c OBJECT-STORE || true';

describe.skipIf(!hasBubblewrap())('under bubblewrap, a committed secret is not readable from .git/objects', () => {
  const secretPaths = loadPolicy().secret_paths;
  const run = (command: string, dir: string, paths: readonly string[] = secretPaths) => runCommand(command, { workspace: dir, timeoutMs: 30_000, outputCap: 200_000, mode: 'bwrap', secretPaths: paths });

  it.each([
    ['loose objects', false, READ_LOOSE],
    ['a pack', true, READ_PACKS],
  ] as const)('in %s, while git keeps working through the shim', async (_name, packed, reader) => {
    const dir = repoWithCommittedSecret(packed);
    // The hole is real: without masking (no secret paths), the reader finds the marker.
    const open = await run(reader, dir, []);
    expect(open.output).toMatch(packed ? /^[1-9]/m : new RegExp(MARKER));
    const masked = await run(reader, dir);
    expect(masked.output).not.toContain(MARKER);
    if (packed) expect(masked.output.trim()).toBe('0');
    for (const command of ['git status --short', 'git log --oneline', 'git log -p', 'git diff', 'git diff --stat', 'git show HEAD:a.txt', 'git show HEAD~1', 'git grep one', 'git cat-file -p HEAD']) {
      const result = await run(command, dir);
      expect(result.exitCode, `${command}: ${result.output}`).toBe(0);
      expect(result.output, command).not.toContain(MARKER);
    }
    expect((await run('git diff', dir)).output).toContain('+three');
    expect((await run('git log -p', dir)).output).toContain('+two');
  });
});
