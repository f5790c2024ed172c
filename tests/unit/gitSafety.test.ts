import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideShell, hasBubblewrap, loadPolicy, runCommand, type SandboxMode } from '../../harness/index.js';
import { tempDir } from '../helpers/cli.js';

/** A repository whose config, attributes and hooks name a program for every trap; each writes a canary. */
function trappedRepo(): string {
  const ws = realpathSync(tempDir('tracegate-gittrap-'));
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd: ws, env: { PATH: process.env['PATH'], GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: ws } });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q', '.');
  writeFileSync(path.join(ws, 'a.txt'), 'hello\n');
  writeFileSync(path.join(ws, '.gitattributes'), 'a.txt filter=evil diff=evil\n');
  git('add', 'a.txt', '.gitattributes');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init');
  const canary = (name: string) => `touch ${ws}/.canary-${name}`;
  const config = [
    '[core]',
    `\tfsmonitor = "${canary('fsmonitor')}; echo"`,
    `\tpager = "${canary('pager')}; cat"`,
    '[pager]',
    `\tlog = "${canary('pager_log')}; cat"`,
    '[filter "evil"]',
    `\tclean = "${canary('clean')}; cat"`,
    `\tsmudge = "${canary('smudge')}; cat"`,
    '[diff "evil"]',
    `\ttextconv = "${canary('textconv')}; cat"`,
    `\tcommand = "${canary('ext_diff')}"`,
    '[diff]',
    `\texternal = "${canary('external')}"`,
    '[alias]',
    `\tst = "!${canary('alias')}"`,
    `\tstatus = "!${canary('alias')}"`,
    '[log]',
    '\tshowSignature = true',
    '[gpg]',
    `\tprogram = ${ws}/.git/gpg.sh`,
  ].join('\n');
  writeFileSync(path.join(ws, '.git/config'), `\n${config}\n`, { flag: 'a' });
  for (const [file, name] of [['.git/hooks/post-index-change', 'hook'], ['.git/gpg.sh', 'gpg']] as const) {
    writeFileSync(path.join(ws, file), `#!/bin/sh\n${canary(name)}\n`);
    chmodSync(path.join(ws, file), 0o755);
  }
  writeFileSync(path.join(ws, 'a.txt'), 'hello\nchanged\n');
  return ws;
}

const fired = (ws: string) => readdirSync(ws).filter((f) => f.startsWith('.canary-')).map((f) => f.slice('.canary-'.length)).sort();

const READ_ONLY = ['git status', 'git status --short', 'git diff', 'git diff HEAD', 'git log -p', 'git log', 'git show', 'git show HEAD:a.txt', 'git blame a.txt'];

describe('the traps are real', () => {
  it('plain git with the workspace config runs them', () => {
    const ws = trappedRepo();
    const env = { PATH: '/usr/bin:/bin', HOME: ws, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    for (const args of [['status'], ['diff'], ['log', '-p'], ['st']]) spawnSync('git', args, { cwd: ws, env });
    expect(fired(ws)).toEqual(expect.arrayContaining(['alias', 'clean', 'ext_diff', 'fsmonitor', 'hook', 'textconv']));
  });
});

describe.each(['process', 'bwrap'] as const)('git in the %s sandbox', (mode: SandboxMode) => {
  it.skipIf(mode === 'bwrap' && !hasBubblewrap()).each(READ_ONLY)('%s runs none of the planted programs', async (command) => {
    const ws = trappedRepo();
    const result = await runCommand(command, { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode });
    expect(result.exitCode, result.output).toBe(0);
    expect(fired(ws)).toEqual([]);
    if (command === 'git diff') expect(result.output).toContain('+changed');
    if (command === 'git status --short') expect(result.output).toContain('M a.txt');
  });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap())('an alias never resolves, and a forced --ext-diff still runs nothing', async () => {
    const ws = trappedRepo();
    await runCommand('git st; git diff --ext-diff; git -c diff.external=x diff', { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode });
    expect(fired(ws)).toEqual([]);
  });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap())('git add -p on a terminal (once approved) runs no interactive diff filter', async () => {
    const ws = trappedRepo();
    writeFileSync(path.join(ws, '.git/config'), `\n[interactive]\n\tdiffFilter = "touch ${ws}/.canary-diff_filter; cat"\n[color]\n\tinteractive = always\n\tdiff = always\n`, { flag: 'a' });
    // git filters the hunks only when it colors them, on a terminal that is not dumb: `script` gives it one.
    const result = await runCommand("printf 'n\\n' | TERM=xterm script -qec 'git add -p' /dev/null", { workspace: ws, timeoutMs: 20_000, outputCap: 8000, mode });
    expect(result.output).toContain('changed');
    expect(fired(ws)).toEqual([]);
  });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap())('a work tree configured outside the workspace is refused', async () => {
    const ws = trappedRepo();
    const outside = realpathSync(tempDir('tracegate-outside-'));
    writeFileSync(path.join(outside, 'private.txt'), 'x\n');
    writeFileSync(path.join(ws, '.git/config'), `\n[core]\n\tworktree = ${outside}\n`, { flag: 'a' });
    const result = await runCommand('git status --short', { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toMatch(/outside the workspace/);
    expect(result.output).not.toContain('private.txt');
  });
});

describe('git is found through the shim, with an absolute or nested workspace', () => {
  it('a repository above the workspace is not discovered', async () => {
    const parent = trappedRepo();
    const ws = path.join(parent, 'inner');
    mkdirSync(ws);
    const result = await runCommand('git status', { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode: 'process' });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toMatch(/not a git repository/);
    expect(fired(parent)).toEqual([]);
    expect(existsSync(path.join(ws, '.canary-fsmonitor'))).toBe(false);
  });
});

/** A repository elsewhere on the machine holding what the agent must not read. */
function outsideRepo(): { dir: string; blob: string } {
  const dir = realpathSync(tempDir('tracegate-outrepo-'));
  const env = { PATH: '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, env, encoding: 'utf8' });
  git('init', '-q', '.');
  writeFileSync(path.join(dir, 'secret.txt'), 'OUTSIDE-SECRET\n');
  writeFileSync(path.join(dir, 'gitconfig'), '[github]\n\ttoken = OUTSIDE-SECRET\n');
  writeFileSync(path.join(dir, 'attributes'), 'leak OUTSIDE-SECRET\n');
  git('add', 'secret.txt');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 's');
  return { dir, blob: git('rev-parse', 'HEAD:secret.txt').stdout.trim() };
}

/** [trap, how the workspace is set up, the read-only command that would leak]; a file the neutral config replaces is not refused, just never read. */
const NEUTRALISED = new Set(['core.attributesFile outside']);
const OUTWARD: Array<[string, (ws: string, out: { dir: string; blob: string }) => void, (out: { blob: string }) => string]> = [
  ['a config include of an outside file', (ws, out) => writeFileSync(path.join(ws, '.git/config'), `\n[include]\n\tpath = ${out.dir}/gitconfig\n`, { flag: 'a' }), () => 'git config --list'],
  ['core.attributesFile outside', (ws, out) => writeFileSync(path.join(ws, '.git/config'), `\n[core]\n\tattributesFile = ${out.dir}/attributes\n`, { flag: 'a' }), () => 'git check-attr -a leak'],
  ['objects borrowed from an outside repository (alternates)', (ws, out) => writeFileSync(path.join(ws, '.git/objects/info/alternates'), `${out.dir}/.git/objects\n`), (out) => `git cat-file -p ${out.blob}`],
  ['a link inside .git to an outside object store', (ws, out) => symlinkSync(`${out.dir}/.git/objects`, path.join(ws, '.git/objects/borrowed')), (out) => `git cat-file -p ${out.blob}`],
  ['a partial clone whose promisor remote is an outside repository', (ws, out) => writeFileSync(path.join(ws, '.git/config'), `\n[remote "origin"]\n\turl = ${out.dir}\n\tpromisor = true\n[extensions]\n\tpartialClone = origin\n[core]\n\trepositoryformatversion = 1\n`, { flag: 'a' }), (out) => `git cat-file -p ${out.blob}`],
  // Files a key's value names, whose content git writes where it can be read or prints: a commit
  // template lands in .git/COMMIT_EDITMSG, a signature file in every patch, a skip list's line in an error.
  ['a commit template outside', (ws, out) => writeFileSync(path.join(ws, '.git/config'), `\n[commit]\n\ttemplate = ${out.dir}/secret.txt\n[user]\n\tname = t\n\temail = t@t\n`, { flag: 'a' }), () => 'rm -f .git/COMMIT_EDITMSG; git commit -a; cat .git/COMMIT_EDITMSG'],
  ['a patch signature file outside', (ws, out) => writeFileSync(path.join(ws, '.git/config'), `\n[format]\n\tsignatureFile = ${out.dir}/secret.txt\n`, { flag: 'a' }), () => 'git format-patch -1 --stdout'],
  ['an fsck skip list outside', (ws, out) => writeFileSync(path.join(ws, '.git/config'), `\n[fsck]\n\tskipList = ${out.dir}/secret.txt\n`, { flag: 'a' }), () => 'git fsck'],
  ['a .git file pointing at an outside repository', (ws, out) => {
    rmSync(path.join(ws, '.git'), { recursive: true });
    writeFileSync(path.join(ws, '.git'), `gitdir: ${out.dir}/.git\n`);
  }, () => 'git show HEAD:secret.txt'],
  ['a .git symlink to an outside repository', (ws, out) => {
    rmSync(path.join(ws, '.git'), { recursive: true });
    symlinkSync(`${out.dir}/.git`, path.join(ws, '.git'));
  }, () => 'git log -p'],
];

describe.each(['process', 'bwrap'] as const)('git in the %s sandbox never reads outside the workspace', (mode: SandboxMode) => {
  it.skipIf(mode === 'bwrap' && !hasBubblewrap()).each(OUTWARD)('%s', async (name, plant, command) => {
    const ws = trappedRepo();
    const out = outsideRepo();
    plant(ws, out);
    const result = await runCommand(command(out), { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode });
    expect(result.output).not.toContain('OUTSIDE-SECRET');
    if (mode === 'process' && !NEUTRALISED.has(name)) {
      expect(result.exitCode).not.toBe(0);
      expect(result.output).toMatch(/refused|outside the workspace/);
    }
    expect(fired(ws)).toEqual([]);
  });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap())('a patch folder configured outside, not there yet, is not written', async () => {
    const ws = trappedRepo();
    const out = outsideRepo();
    writeFileSync(path.join(ws, '.git/config'), `\n[format]\n\toutputDirectory = ../${path.basename(out.dir)}/patches/new\n`, { flag: 'a' });
    const result = await runCommand('git format-patch -1', { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode });
    expect(existsSync(path.join(out.dir, 'patches')), result.output).toBe(false);
    if (mode === 'process') expect(result.output).toMatch(/refused: format\.outputdirectory names/);
  });

  it.skipIf(mode === 'bwrap' && !hasBubblewrap())('an ordinary repository still works with every check in place', async () => {
    const ws = trappedRepo();
    mkdirSync(path.join(ws, 'sub'));
    // Files named inside the workspace, relative or absolute, are the repository's own business.
    writeFileSync(path.join(ws, '.git/config'), `\n[commit]\n\ttemplate = .gitmessage\n[format]\n\toutputDirectory = ${ws}/patches\n`, { flag: 'a' });
    const result = await runCommand('git status --short && git -C sub log --oneline && git config --list --name-only', { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toContain('M a.txt');
    expect(result.output).toContain('init');
  });
});

describe('the outward traps are real', () => {
  it('plain git reads the outside repository and the included file', () => {
    const ws = trappedRepo();
    const out = outsideRepo();
    writeFileSync(path.join(ws, '.git/config'), `\n[include]\n\tpath = ${out.dir}/gitconfig\n`, { flag: 'a' });
    writeFileSync(path.join(ws, '.git/objects/info/alternates'), `${out.dir}/.git/objects\n`);
    const env = { PATH: '/usr/bin:/bin', HOME: ws, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    expect(spawnSync('git', ['config', '--get', 'github.token'], { cwd: ws, env, encoding: 'utf8' }).stdout).toContain('OUTSIDE-SECRET');
    expect(spawnSync('git', ['cat-file', '-p', out.blob], { cwd: ws, env, encoding: 'utf8' }).stdout).toContain('OUTSIDE-SECRET');
    writeFileSync(path.join(ws, '.git/config'), `\n[commit]\n\ttemplate = ${out.dir}/secret.txt\n[format]\n\tsignatureFile = ${out.dir}/secret.txt\n[fsck]\n\tskipList = ${out.dir}/secret.txt\n`, { flag: 'a' });
    const quiet = { ...env, GIT_EDITOR: 'false', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.hooksPath', GIT_CONFIG_VALUE_0: '/dev/null' };
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-a'], { cwd: ws, env: quiet });
    expect(readFileSync(path.join(ws, '.git/COMMIT_EDITMSG'), 'utf8')).toContain('OUTSIDE-SECRET');
    expect(spawnSync('git', ['format-patch', '-1', '--stdout'], { cwd: ws, env: quiet, encoding: 'utf8' }).stdout).toContain('OUTSIDE-SECRET');
    expect(spawnSync('git', ['fsck'], { cwd: ws, env: quiet, encoding: 'utf8' }).stderr).toContain('OUTSIDE-SECRET');
  });
});

describe('the shell cannot undo the harness\'s git environment', () => {
  it('a loop variable or printf -v resetting GIT_CONFIG_COUNT or PATH would re-enable the traps; the policy refuses both', async () => {
    const ws = trappedRepo();
    const loop = 'for GIT_CONFIG_COUNT in 0; do git status; done';
    await runCommand(loop, { workspace: ws, timeoutMs: 10_000, outputCap: 8000, mode: 'process' });
    expect(fired(ws)).toContain('fsmonitor');
    const policy = loadPolicy();
    for (const command of [loop, 'printf -v GIT_CONFIG_COUNT 0; git status', 'for PATH in ./bin; do git status; done', 'printf -v PATH %s ./bin && git status']) {
      for (const sandbox of ['process', 'isolated'] as const) {
        expect(await decideShell(policy, command, ws, sandbox), command).toMatchObject({ decision: 'deny', rule: 'env-hijack' });
      }
    }
  });
});

describe('a secret the repository tracks, or once tracked, is not printed from its objects', () => {
  const SECRET = 'COMMITTED-SECRET-VALUE';
  const committedSecretRepo = (): string => {
    const dir = realpathSync(tempDir('tracegate-committed-secret-'));
    const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    git('init', '-q', '.');
    mkdirSync(path.join(dir, 'deploy'));
    writeFileSync(path.join(dir, 'deploy/.env'), `TOKEN=${SECRET}\n`);
    writeFileSync(path.join(dir, 'a.txt'), 'x\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'with a secret');
    // Removed from the tree since: only the history holds it.
    git('rm', '-q', 'deploy/.env');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'removed');
    return dir;
  };
  const blobOf = (dir: string) => spawnSync('git', ['rev-parse', 'HEAD~1:deploy/.env'], { cwd: dir, encoding: 'utf8' }).stdout.trim();
  const modes: SandboxMode[] = hasBubblewrap() ? ['process', 'bwrap'] : ['process'];
  const run = (command: string, dir: string, mode: SandboxMode, secretPaths?: readonly string[]) =>
    runCommand(command, { workspace: dir, timeoutMs: 15_000, outputCap: 20_000, mode, ...(secretPaths ? { secretPaths } : {}) });

  it.each(modes)('under %s: show, log -p, diff and grep run with the secret withheld; its blobs are refused; listings run', async (mode) => {
    const dir = committedSecretRepo();
    const secretPaths = loadPolicy().secret_paths;
    const withheld = ['git show HEAD~1', 'git log -p', 'git log --all -p --oneline', 'git grep TOKEN HEAD~1', 'git diff HEAD~1 HEAD', 'git log --unified=1', 'git log -U1', 'git show --stat --unified=2 HEAD~1', 'git diff --stat --unified=1 HEAD~1 HEAD', 'git whatchanged --unified=1', 'git log --patch-with-stat', 'git diff -W HEAD~1 HEAD', 'git diff --word-diff HEAD~1', 'git show --color-words HEAD~1', 'git log --cc', 'git log -c', 'git log -u', 'git log --binary', 'git log --patch-with-raw', 'git format-patch --stdout --root HEAD', 'git archive HEAD~1'];
    const refused = [`git cat-file -p ${blobOf(dir)}`, `git show ${blobOf(dir)}`, 'git cat-file --batch-all-objects --batch', 'git show HEAD~1:deploy/.env', 'git log -L1,1:deploy/.env HEAD~1', 'git log -p --full-diff -- a.txt'];
    // The trap for the last form is real.
    expect((await run('git log -p --until now', dir, mode)).output).toContain(SECRET);
    // A trailing option that takes a value takes the first copy of the appended excludes; the second still holds.
    for (const command of ['git log -p --grep', 'git log -p --until']) {
      const guarded = await run(command, dir, mode, secretPaths);
      expect(guarded.output, command).not.toContain(SECRET);
      if (command.endsWith('--until')) expect(guarded.output, command).toContain('+x');
    }
    // A pickaxe search answers whether a guess matches the secret, character by character.
    const oracles = ['git log -G^TOKEN=C --oneline', 'git log --all -STOKEN --oneline'];
    for (const command of [...withheld, ...refused]) {
      // The trap is real: the same git without the policy's secret paths prints the secret (a
      // trailing --grep would take an appended pathspec as its value; alone it is an error).
      if (!command.includes('--full-diff')) expect((await run(command, dir, mode)).output, command).toContain(SECRET);
      const guarded = await run(command, dir, mode, secretPaths);
      expect(guarded.output, command).not.toContain(SECRET);
      // Under bubblewrap the secret's blob is masked too (gitSecretObjects.test.ts): git may find no such object.
      expect(guarded.output, command).toMatch(mode === 'bwrap' && refused.includes(command) ? /deploy\/\.env|Not a valid object name|bad object|unable to read/ : /deploy\/\.env/);
      // git grep exits 1 when nothing matches: the secret's lines were all it would have found.
      expect(refused.includes(command) ? [128] : [0, 1], `${command}: ${guarded.output}`).toContain(guarded.exitCode);
      if (withheld.includes(command)) expect(guarded.output, command).toMatch(/withheld from this output/);
    }
    for (const command of oracles) {
      expect((await run(command, dir, mode)).output, command).toMatch(/with a secret|removed/);
      const guarded = await run(command, dir, mode, secretPaths);
      expect(guarded.output, command).not.toMatch(/with a secret|removed/);
    }
    for (const command of ['git log --oneline', 'git show --stat HEAD~1', 'git log --name-only', 'git cat-file -t HEAD', 'git diff --stat HEAD~1 HEAD', 'git cat-file -p HEAD', 'git show HEAD~1:a.txt']) {
      const listed = await run(command, dir, mode, secretPaths);
      expect(listed.exitCode, `${command}: ${listed.output}`).toBe(0);
      expect(listed.output).not.toContain(SECRET);
    }
    // A history listing keeps the commit that only touched the secret.
    expect((await run('git log --oneline', dir, mode, secretPaths)).output).toContain('removed');
  }, 240_000); // dozens of real git commands under a sandbox: a minute on a loaded 2-core machine

  it.each(modes)('under %s: commands that carry whole objects (a stream, a pack, a merge\'s hunks, a ref\'s raw object) are refused', async (mode) => {
    const dir = committedSecretRepo();
    const blob = blobOf(dir);
    spawnSync('git', ['tag', 'secret-blob', blob], { cwd: dir });
    const secretPaths = loadPolicy().secret_paths;
    const carriers = [
      'git fast-export --all',
      `echo ${blob} | git -c pack.compression=0 pack-objects --stdout`,
      'git merge-tree HEAD~1 HEAD~1 HEAD',
      `git unpack-file ${blob} && cat .merge_file_*`,
      "git for-each-ref --format='%(raw)' refs/tags",
      "git tag --list --format='%(raw)'",
    ];
    for (const command of carriers) {
      // The trap is real: the same git without the policy's secret paths prints the secret.
      expect((await run(`${command}; rm -f .merge_file_*`, dir, mode)).output, command).toContain(SECRET);
      const guarded = await run(command, dir, mode, secretPaths);
      expect(guarded.output, command).not.toContain(SECRET);
      expect(guarded.exitCode, `${command}: ${guarded.output}`).not.toBe(0);
      // Under bubblewrap the blob is masked, and git cannot read the history through the tag to it: the shim fails closed.
      expect(guarded.output, command).toMatch(mode === 'bwrap' ? (command.includes('unpack-file') ? /unable to read|bad object|corrupt|refused/ : /refused: /) : /refused: .*deploy\/\.env/);
    }
    // What carries only ids and names still runs (with no ref to a blob bubblewrap masks).
    spawnSync('git', ['tag', '-d', 'secret-blob'], { cwd: dir });
    for (const command of ["git for-each-ref --format='%(objectname) %(raw:size)'", 'git merge-tree --write-tree HEAD HEAD~1', 'git tag --list', 'git branch --list']) {
      const listed = await run(command, dir, mode, secretPaths);
      expect(listed.exitCode, `${command}: ${listed.output}`).toBe(0);
    }
  }, 240_000);

  it('a repository that never tracked a secret shows patches as before', async () => {
    const dir = realpathSync(tempDir('tracegate-no-secret-'));
    const git = (...args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    git('init', '-q', '.');
    writeFileSync(path.join(dir, 'a.txt'), 'PLAIN-CONTENT\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'plain');
    const shown = await run('git show HEAD && git grep PLAIN', dir, 'process', loadPolicy().secret_paths);
    expect(shown.exitCode, shown.output).toBe(0);
    expect(shown.output).toContain('+PLAIN-CONTENT');
  });
});
