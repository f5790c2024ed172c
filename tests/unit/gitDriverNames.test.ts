import { spawnSync } from 'node:child_process';
import { readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBubblewrap, runCommand, type SandboxMode } from '../../harness/index.js';
import { tempDir } from '../helpers/cli.js';

/**
 * Drivers a repository names itself, with names `git -c key=value` cannot carry (`a=b` splits at
 * the first `=`): every program git would run for them leaves a marker file, nothing more.
 */
const NAME = 'a=b';

function plainGit(ws: string, ...args: string[]): string {
  const env = { PATH: '/usr/bin:/bin', HOME: ws, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const r = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function driverRepo(): string {
  const ws = realpathSync(tempDir('tracegate-gitdrivers-'));
  plainGit(ws, 'init', '-q', '-b', 'main', '.');
  writeFileSync(path.join(ws, 'a.txt'), 'one\n');
  writeFileSync(path.join(ws, '.gitattributes'), `*.txt filter=${NAME} diff=${NAME} merge=${NAME}\n`);
  plainGit(ws, 'add', '.');
  plainGit(ws, 'commit', '-qm', 'init');
  plainGit(ws, 'branch', 'side');
  writeFileSync(path.join(ws, 'a.txt'), 'one\nmain\n');
  plainGit(ws, 'commit', '-qam', 'main');
  const marker = (name: string) => `touch ${ws}/.marker-${name}`;
  const config = [
    `[filter "${NAME}"]`,
    `\tclean = "${marker('clean')}; cat"`,
    `\tsmudge = "${marker('smudge')}; cat"`,
    `\tprocess = "${marker('process')}"`,
    '\trequired = true',
    `[diff "${NAME}"]`,
    `\ttextconv = "${marker('textconv')}; cat"`,
    `\tcommand = "${marker('diff_command')}"`,
    `[merge "${NAME}"]`,
    `\tdriver = "${marker('merge_driver')}"`,
    `[tar "${NAME}"]`,
    `\tcommand = "${marker('tar_command')}"`,
    `[trailer "${NAME}"]`,
    `\tcommand = "${marker('trailer')}"`,
    `[pager]`,
    `\tshow = "${marker('pager')}; cat"`,
  ].join('\n');
  writeFileSync(path.join(ws, '.git/config'), `\n${config}\n`, { flag: 'a' });
  writeFileSync(path.join(ws, 'a.txt'), 'one\nmain\nchanged\n');
  return ws;
}

const markers = (ws: string) => readdirSync(ws).filter((f) => f.startsWith('.marker-')).map((f) => f.slice('.marker-'.length)).sort();

/** Each command makes git reach for one of the drivers above. */
const COMMANDS = [
  'git status --short',
  'git diff',
  'git log -p',
  'git show',
  'git blame a.txt',
  'git format-patch --stdout -1',
  'git add a.txt && git diff --cached',
  'git stash && git stash show -p && git stash pop',
  'git checkout -q side -- a.txt',
  `git archive --format=${NAME} HEAD`,
  'git -c user.name=t -c user.email=t@t commit -qam wip && git merge -q side -m m',
  'git interpret-trailers --trailer a=b </dev/null',
];

describe('the driver names are real traps', () => {
  it('plain git, and git -c "filter.a=b.process=", run them', () => {
    const ws = driverRepo();
    spawnSync('git', ['-c', `filter.${NAME}.process=`, '-c', `filter.${NAME}.clean=`, 'diff'], { cwd: ws, env: { PATH: '/usr/bin:/bin', HOME: ws, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    expect(markers(ws)).toContain('process');
  });
});

describe.each(['process', 'bwrap'] as const)('drivers named with "=" under the %s sandbox', (mode: SandboxMode) => {
  it.skipIf(mode === 'bwrap' && !hasBubblewrap()).each(COMMANDS)('%s runs none of them', async (command) => {
    const ws = driverRepo();
    const result = await runCommand(command, { workspace: ws, timeoutMs: 30_000, outputCap: 20_000, mode });
    expect(markers(ws), result.output).toEqual([]);
    if (command === 'git diff') {
      expect(result.exitCode, result.output).toBe(0);
      expect(result.output).toContain('+changed');
    }
    if (command === 'git status --short') expect(result.output).toContain('M a.txt');
  });
});
