import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBubblewrap, runCommand, type SandboxMode } from '../../harness/index.js';
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
