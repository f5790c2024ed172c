import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideShell, decideToolCall, hasBubblewrap, loadPolicy, runCommand } from '../../harness/index.js';
import type { SandboxKind } from '../../harness/policy/decision.js';
import type { Policy } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

/**
 * Holes found by attacking the sandbox-aware policy with hand-written inputs, each
 * closed in the reading or rule that let it through. Every case is decided under both sandboxes.
 */
let policy: Policy;
let ws: string;
let outside: string;

beforeAll(() => {
  policy = loadPolicy();
  ws = realpathSync(tempDir('tracegate-adversarial-'));
  outside = realpathSync(tempDir('tracegate-outside-'));
  writeFileSync(path.join(outside, 'credentials'), 'token=secret\n');
  mkdirSync(path.join(ws, 'src'));
  mkdirSync(path.join(ws, 'sub'));
  writeFileSync(path.join(ws, 'src/a.py'), 'print(1)\n');
  writeFileSync(path.join(ws, 'top.txt'), 'hi\n');
  writeFileSync(path.join(ws, '.env'), 'TOKEN=x\n');
  writeFileSync(path.join(ws, 'hid.js'), "require('child_process').execSync('id')\n");
  // A zip application: deflated, its __main__.py cannot be read from the archive's bytes.
  writeFileSync(path.join(ws, 'app.pyz'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0x9c, 0x7d]));
  // A checked-out repository may carry links out of the workspace one folder down.
  symlinkSync('/etc/passwd', path.join(ws, 'sub/link'));
  symlinkSync(outside, path.join(ws, 'sub/home'));
});

const SANDBOXES: SandboxKind[] = ['process', 'isolated'];

/** [technique, command, the rule expected to stop it]: refused (deny) under both sandboxes. */
const REFUSED: Array<[string, string, string]> = [
  // cd: relative paths are read from the folder the command changes into
  ['cd into a folder, then read its outward link', 'cd sub && cat link', 'path-outside-workspace'],
  ['cd into a folder, then read through its linked folder', 'cd sub; cat home/credentials', 'path-outside-workspace'],
  ['cd into a folder, then write through its link', 'cd sub && echo x > link', 'path-outside-workspace'],
  ['cd into a folder, then glob over its links', 'cd sub && cat *', 'glob-through-symlink'],
  ['env --chdir= outside, then a relative path', 'env --chdir=/ cat etc/passwd', 'path-outside-workspace'],
  ['env -CDIR bundled', 'env -C/ cat etc/passwd', 'path-outside-workspace'],
  ['env -C into a folder, then its outward link', 'env -C sub cat link', 'path-outside-workspace'],
  ['git -C: paths after it are relative to the folder', 'git -C sub diff --no-index home/credentials src/a.py', 'path-outside-workspace'],
  // a glob is matched against the workspace: one that matches a secret is refused like the secret's name
  ['a glob that matches .env', 'head -n 5 .e*', 'secret-path'],
  ['a bracket glob that matches .env', 'cat .[e]nv', 'secret-path'],
  ['dot files by glob', 'cat .*', 'secret-path'],
  // GNU diff follows links it meets while recursing
  ['diff -r over a folder with an outward link', 'diff -r sub src', 'follows-symlinks'],
  ['diff -r from a folder cd-ed into', 'cd sub && diff -ru . ../src', 'follows-symlinks'],
  // a file read out of the repository's objects is a path too
  ['git show of a committed secret', 'git show HEAD:.env', 'secret-path'],
  ['git cat-file of a staged secret', 'git cat-file -p :0:.env', 'secret-path'],
  // sed -i SUFFIX with a `/` writes the backup into another folder
  ['sed -i backup into an outside folder', "sed -i'/tmp/*' s/hi/ho/ top.txt", 'path-outside-workspace'],
  ['sed --in-place backup into an outside folder', 'sed --in-place=/tmp/bak/* s/hi/ho/ top.txt', 'path-outside-workspace'],
  ['sed -ni bundle with a backup folder', "sed -ni'../*' p top.txt", 'path-outside-workspace'],
  ['sed -i backup through a linked folder', "sed -i'sub/home/*' s/hi/ho/ top.txt", 'path-outside-workspace'],
  ['sed W with its file name consumed', "sed -n '/x/W /tmp/y' top.txt", 'sed-writes-file'],
  ['sed w after a line address', "sed -n '1w out.txt' top.txt", 'sed-writes-file'],
  // git parse-options takes any unambiguous prefix and bundles short flags
  ['git grep --open-files-in-pager abbreviated', 'git grep --op=id x', 'git-dangerous-option'],
  ['git grep --open-files-in-pager abbreviated, separate value', 'git grep --open-files id x', 'git-dangerous-option'],
  ['git grep -O bundled after a flag', "git grep -nO'id' x", 'git-dangerous-option'],
  ['git diff --ext-diff abbreviated', 'git diff --ext', 'git-dangerous-option'],
  ['git show --show-signature abbreviated', 'git show --show-sig', 'git-dangerous-option'],
  ['git log --textconv abbreviated', 'git log -p --textc', 'git-dangerous-option'],
  ['git cat-file --filters abbreviated', 'git cat-file --filt HEAD:a', 'git-dangerous-option'],
  // python: spawning reached through another name
  ['python: spawn function imported under another name', `python3 -c "from os import system as s; s('id')"`, 'inline-spawns-process'],
  ['python: spawn function from posix', `python3 -c "from posix import system as s; s('id')"`, 'inline-spawns-process'],
  ['python: _posixsubprocess', 'python3 -c "import _posixsubprocess"', 'inline-spawns-process'],
  ['python: asyncio subprocess_exec', 'python3 -c "import asyncio; asyncio.get_event_loop().subprocess_exec"', 'inline-spawns-process'],
  ['python: os.popen2', 'python3 -c "import os; os.popen2"', 'inline-spawns-process'],
  ['python: pipes module runs shell templates', "python3 -c \"import pipes; pipes.Template().append('id','--')\"", 'inline-spawns-process'],
  ['python: distutils spawn', "python3 -c \"from distutils.spawn import spawn; spawn(['id'])\"", 'inline-spawns-process'],
  ['python: _socket', 'python3 -c "import _socket"', 'inline-network'],
  ['python -m timeit runs its statements', `python3 -m timeit "__import__('os').system('id')"`, 'inline-spawns-process'],
  ['python -m timeit setup', `python3 -m timeit -s "import subprocess" "subprocess.run('id')"`, 'inline-spawns-process'],
  // node: child_process named outside require()
  ['node: createRequire', "node -e \"require('module').createRequire(__filename)('child_process').spawn('id')\"", 'inline-spawns-process'],
  ['node: process.getBuiltinModule', "node -e \"process.getBuiltinModule('child_process').spawn('id')\"", 'inline-spawns-process'],
  ['node: dynamic import of child_process', "node -e \"import('child_process').then((m) => m.spawn('id'))\"", 'inline-spawns-process'],
  ['node: require.call', "node -e \"require.call(null, 'child_process')\"", 'inline-spawns-process'],
];

/** Code built or reached at run time: sent to approval under both sandboxes (never allowed). */
const ASKED: Array<[string, string]> = [
  ['python: builtins.__import__', `python3 -c "import builtins; builtins.__import__('o' + 's')"`],
  ['python: builtins.exec', `python3 -c "import builtins; builtins.exec('print(1)')"`],
  ['python: module __dict__', `python3 -c "import os; os.__dict__['sys' + 'tem']('id')"`],
  ['python: operator.methodcaller', `python3 -c "import os, operator; operator.methodcaller('sys' + 'tem', 'id')(os)"`],
  ['python: operator.attrgetter', `python3 -c "import operator, os; operator.attrgetter('sys' + 'tem')(os)('id')"`],
  ['python: timeit runs a string', `python3 -c "import timeit; timeit.timeit('print(1)', number=1)"`],
  ['python: code.InteractiveInterpreter', `python3 -c "import code; code.InteractiveInterpreter().runsource('print(1)')"`],
  ['python: pdb.run', `python3 -c "import pdb; pdb.run('print(1)')"`],
  ['python: cProfile.run', `python3 -c "import cProfile; cProfile.run('print(1)')"`],
  ['python: sys.modules', `python3 -c "import sys; sys.modules['o' + 's']"`],
  ['python: breakpoint', 'python3 -c "breakpoint()"'],
  ['python: __loader__.load_module', `python3 -c "__loader__.load_module('o' + 's')"`],
  ['python: sqlite load_extension', `python3 -c "import sqlite3; sqlite3.connect(':memory:').load_extension('x')"`],
  ['python -m trace runs an unread script', 'python3 -m trace --trace src/a.py'],
  ['python -m pdb runs pdb commands', 'python3 -m pdb -c continue src/a.py'],
  ['python -m cProfile runs an unread script', 'python3 -m cProfile src/a.py'],
  ['node: global[...]', `node -e "global['req' + 'uire']('fs')"`],
  ['node: process[...]', `node -e "process['bind' + 'ing']('fs')"`],
  ['node: Function via an arrow constructor', `node -e "(() => {}).constructor('return process')()"`],
  ['node: AsyncFunction constructor', `node -e "Object.getPrototypeOf(async function () {}).constructor('x')"`],
  ['node: Reflect.apply(require)', `node -e "Reflect.apply(require, null, ['f' + 's'])"`],
  ['node: require vm', `node -e "require('vm').runInThisContext('1')"`],
  ['node: require repl', `node -e "require('repl').start()"`],
  ['node resolves a bare name to a file the policy did not read', 'node hid'],
  ['python runs a zip application', 'python3 app.pyz'],
  ['copy into a folder, then run the copy', 'cp hid.js src/ && node src/hid.js'],
  ['move a file over an existing script through its folder, then run it', 'mv a.py src/ && python3 src/a.py'],
  ['sed -f /dev/stdin with a here-doc script', "sed -f /dev/stdin top.txt <<'EOF'\ne id\nEOF"],
  ['awk -f /dev/stdin', "awk -f /dev/stdin top.txt <<'EOF'\nBEGIN { print 1 }\nEOF"],
  // a program file the same command writes first: what is on disk when the policy reads it proves nothing
  ['here-doc written to a script, then run', "cat > run.py <<'EOF'\nimport subprocess\nsubprocess.run(['id'])\nEOF\npython3 run.py"],
  ['echo into a script, then run', `echo 'import os; os.system("id")' > r.py && python3 r.py`],
  ['sed -i a script, then run it', "sed -i 's/print/exec/' src/a.py && python3 src/a.py"],
  ['copy over a script, then run it from its folder', 'cp top.txt src/a.py && cd src && python3 a.py'],
  ['node: write, then run', "echo \"require('child_process')\" > x.js; node x.js"],
]

/** Look-alikes the fixes must leave allowed (under bubblewrap where interpreters need it). */
const STILL_ALLOWED: Array<[string, string]> = [
  ['cd, then a file of that folder', 'cd src && cat a.py'],
  ['a glob that skips dot files, as bash does', 'cat *.txt'],
  ['diff -r of folders without outward links', 'diff -r src src'],
  ['diff -r --no-dereference', 'diff -r --no-dereference sub src'],
  ['git show of a committed source file', 'git show HEAD:src/a.py'],
  ['cd, then a glob without outward links', 'cd src && ls *'],
  ['sed -i with a plain suffix', 'sed -i.bak s/hi/ho/ top.txt'],
  ['sed -i with a backup folder inside the workspace', "sed -i'src/*.orig' s/hi/ho/ top.txt"],
  ['git grep -e O searches for O', 'git grep -n -e O x'],
  ['git grep --text is not --textconv', 'git grep --text x'],
  ['git rev-list --filter is not --filters', 'git rev-list --objects --filter=blob:none HEAD'],
  ['git -C an inside folder', 'git -C src log --oneline'],
  ['python -m timeit of arithmetic', 'python3 -m timeit "sum(range(10))"'],
  ['python: a here-doc that computes', "python3 - <<'EOF'\nprint(sum(range(10)))\nEOF"],
  ['python: a workspace script named once', 'python3 src/a.py'],
  ['python: a computation', 'python3 -c "import math, json; print(json.dumps([math.sqrt(2)]))"'],
  ['node: a class with a constructor', 'node -e "class A { constructor() { this.x = 1; } }; console.log(new A().x)"'],
  ['node: reading a workspace file', "node -e \"console.log(require('fs').readFileSync('top.txt', 'utf8'))\""],
];

describe.each(SANDBOXES)('adversarial inputs under the %s sandbox', (sandbox) => {
  it.each(REFUSED)('refused: %s', async (_name, command, rule) => {
    const decision = await decideShell(policy, command, ws, sandbox);
    expect(decision, `${command} → ${decision.rule}: ${decision.reason}`).toMatchObject({ decision: 'deny', rule });
  });

  it.each(ASKED)('never allowed: %s', async (_name, command) => {
    const decision = await decideShell(policy, command, ws, sandbox);
    expect(decision.decision, `${command} → ${decision.rule}: ${decision.reason}`).not.toBe('allow');
    if (sandbox === 'isolated') expect(decision.decision).toBe('require_approval');
  });
});

describe('look-alikes stay allowed', () => {
  it.each(STILL_ALLOWED)('%s', async (_name, command) => {
    const decision = await decideShell(policy, command, ws, 'isolated');
    expect(decision.decision, `${command} → ${decision.rule}: ${decision.reason}`).toBe('allow');
  });
});

describe('the traps behind the fixes are real', () => {
  it('GNU sed -i with a folder in its suffix copies the file out of the workspace', () => {
    const dest = realpathSync(tempDir('tracegate-sedbak-'));
    const r = spawnSync('sed', [`-i${dest}/*`, 's/hi/ho/', 'top.txt'], { cwd: ws, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(path.join(dest, 'top.txt'), 'utf8')).toBe('hi\n');
    writeFileSync(path.join(ws, 'top.txt'), 'hi\n');
  });

  it('GNU diff -r prints the content behind a link it meets while recursing', () => {
    const dir = realpathSync(tempDir('tracegate-diffr-'));
    mkdirSync(path.join(dir, 'a'));
    mkdirSync(path.join(dir, 'b'));
    writeFileSync(path.join(outside, 'behind-link'), 'BEHIND-THE-LINK\n');
    symlinkSync(path.join(outside, 'behind-link'), path.join(dir, 'a/f'));
    writeFileSync(path.join(dir, 'b/f'), 'x\n');
    expect(spawnSync('diff', ['-r', 'a', 'b'], { cwd: dir, encoding: 'utf8' }).stdout).toContain('BEHIND-THE-LINK');
  });

  it('git grep accepts an abbreviated --open-files-in-pager and a bundled -O, and runs the program', () => {
    const repo = realpathSync(tempDir('tracegate-grepo-'));
    const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: repo, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    git('init', '-q', '.');
    writeFileSync(path.join(repo, 'a.txt'), 'hello\n');
    git('add', 'a.txt');
    git('grep', `--op=touch ${repo}/.canary-op`, 'hello');
    git('grep', `-nOtouch ${repo}/.canary-bundle`, 'hello');
    expect(existsSync(path.join(repo, '.canary-op'))).toBe(true);
    expect(existsSync(path.join(repo, '.canary-bundle'))).toBe(true);
  });
});

/**
 * Secrets reached without naming them (found by the sandbox probe): a recursive reader, a secret
 * folder named as a folder, a file list read at run time, an awk program that rewrites ARGV. Each
 * is shown to leak for real under the process sandbox, then refused (or asked) by the policy.
 */
describe('secrets reached without naming them', () => {
  let box: string;
  const SECRETS = ['ENV-SECRET-VALUE', 'AWS-SECRET-VALUE', 'SSH-SECRET-VALUE'];
  const fresh = () => {
    box = realpathSync(tempDir('tracegate-unnamed-secret-'));
    mkdirSync(path.join(box, 'src'));
    mkdirSync(path.join(box, '.aws'));
    mkdirSync(path.join(box, '.ssh'));
    writeFileSync(path.join(box, 'src/a.txt'), 'plain\n');
    writeFileSync(path.join(box, '.env'), `TOKEN=${SECRETS[0]}\n`);
    writeFileSync(path.join(box, '.aws/credentials'), `${SECRETS[1]}\n`);
    writeFileSync(path.join(box, '.ssh/config'), `${SECRETS[2]}\n`);
    writeFileSync(path.join(outside, 'listed'), 'OUTSIDE-LISTED\n');
    return box;
  };
  const leaks = (output: string) => [...SECRETS, 'OUTSIDE-LISTED'].filter((s) => output.includes(s));

  /** [technique, command, rule under the process sandbox, decision under bubblewrap]. */
  const CASES: Array<[string, string, string, 'allow' | 'require_approval' | 'deny']> = [
    // After `--` the sandbox's grep could add no excludes (they would be file names): refused.
    ['grep -r with -- before its operands', 'grep -rn -- SECRET .', 'recursive-secret', 'allow'],
    ['grep -r with -- and no folder', 'grep -r -- SECRET', 'recursive-secret', 'allow'],
    ['diff -rN against an empty folder prints every file', 'mkdir -p e && diff -rN . e', 'recursive-secret', 'allow'],
    ['git grep --no-index', 'git grep --no-index SECRET', 'recursive-secret', 'allow'],
    ['git grep --no-index abbreviated', 'git grep --no-ind SECRET', 'recursive-secret', 'allow'],
    ['git diff --no-index of folders', 'mkdir -p e && git diff --no-index e .', 'recursive-secret', 'allow'],
    ['cp -r of the workspace, then read the copy', 'mkdir -p e && cp -r src .aws e/ && cat e/.aws/credentials', 'recursive-secret', 'deny'],
    ['a secret folder copied by its name', 'cp -r .aws a && cat a/credentials', 'recursive-secret', 'deny'],
    ['a secret folder copied with a trailing slash', 'cp -a .ssh/ k && cat k/config', 'recursive-secret', 'deny'],
    ['a secret folder moved, then read', 'mv .aws a; cat a/credentials', 'secret-path', 'deny'],
    ['a folder holding a secret folder moved', 'mkdir -p d && mv .ssh d/ && cat d/.ssh/config', 'secret-path', 'deny'],
    ['sort --files0-from reads the files a list names', `printf '${'OUT'}/listed\\0.env\\0' > l && sort --files0-from=l`, 'file-list-argument', 'require_approval'],
    ['sort --files0-from abbreviated', "printf '.env\\0' > l; sort --files0 l", 'file-list-argument', 'require_approval'],
    ['awk rewriting ARGV', `awk 'BEGIN { ARGV[1] = ".e" "nv"; ARGC = 2 } { print }'`, 'awk-reads-file', 'require_approval'],
    ['awk split into ARGV', `awk 'BEGIN { split(".env", ARGV); ARGC = 2 } { print }'`, 'awk-reads-file', 'require_approval'],
  ];

  it.each(CASES)('%s: leaks under the process group, and the policy stops it', async (_name, template, rule, underBwrap) => {
    const command = template.replaceAll('OUT', outside);
    const ws1 = fresh();
    const ran = await runCommand(command, { workspace: ws1, timeoutMs: 10_000, outputCap: 20_000, mode: 'process' });
    expect(leaks(ran.output), `${command} printed ${ran.output}`).not.toEqual([]);
    const ws2 = fresh();
    const decision = await decideShell(policy, command, ws2, 'process');
    expect(decision, `${command} → ${decision.rule}: ${decision.reason}`).toMatchObject({ rule });
    expect(decision.decision).not.toBe('allow');
    expect((await decideShell(policy, command, ws2, 'isolated')).decision).toBe(underBwrap);
  });

  /** Recursive greps that leak under the process group: they run with the secret paths withheld. */
  const WITHHELD = [
    'grep -rn SECRET .',
    'grep -r SECRET',
    'grep -d recurse SECRET .',
    'grep --directories=recurse SECRET',
    'grep --rec -h . .',
    // grep lets the last of contradictory --include/--exclude win: the sandbox's excludes go last.
    "grep -rn '--include=.*' SECRET .",
    // `..` from src is the workspace.
    'cd src && grep -r SECRET ..',
    'egrep -r "SECRET|plain" .',
  ];

  it.each(WITHHELD)('%s: leaks under the process group; the policy runs it with the secrets withheld, and says so', async (command) => {
    const ran = await runCommand(command, { workspace: fresh(), timeoutMs: 10_000, outputCap: 20_000, mode: 'process' });
    expect(leaks(ran.output), `${command} printed ${ran.output}`).not.toEqual([]);
    const ws2 = fresh();
    const decided = await decideShell(policy, command, ws2, 'process');
    expect(decided.decision, `${decided.rule}: ${decided.reason}`).toBe('allow');
    const guarded = await runCommand(command, { workspace: ws2, timeoutMs: 10_000, outputCap: 20_000, mode: 'process', secretPaths: policy.secret_paths });
    expect(leaks(guarded.output), guarded.output).toEqual([]);
    expect(guarded.output).toContain('grep: withheld from this output: files matching the secret paths (.env, ');
  });

  it('grep -rn TODO . with a root .env finds the TODOs and withholds the secret', async () => {
    const ws1 = fresh();
    writeFileSync(path.join(ws1, 'src/a.txt'), 'TODO: plain work\n');
    writeFileSync(path.join(ws1, '.env'), 'TODO=ENV-SECRET-VALUE\n');
    const ran = await runCommand('grep -rn TODO .', { workspace: ws1, timeoutMs: 10_000, outputCap: 20_000, mode: 'process', secretPaths: policy.secret_paths });
    expect(ran.output).toContain('./src/a.txt:1:TODO: plain work');
    expect(leaks(ran.output)).toEqual([]);
    expect(ran.exitCode).toBe(0);
  });

  it('find -files0-from walks the folders a list names, outside the workspace too', async () => {
    const command = `printf '${outside}\\0' > l; find -files0-from l`;
    const ran = await runCommand(command, { workspace: fresh(), timeoutMs: 10_000, outputCap: 20_000, mode: 'process' });
    expect(ran.output).toContain(path.join(outside, 'listed'));
    for (const sandbox of SANDBOXES) {
      expect(await decideShell(policy, command, fresh(), sandbox)).toMatchObject({ decision: 'require_approval', rule: 'file-list-argument' });
    }
  });

  it.skipIf(!hasBubblewrap())('under bubblewrap a recursive grep meets only the masks, so it stays allowed', async () => {
    const ws1 = fresh();
    for (const command of ['grep -rn SECRET .', 'mkdir -p e && diff -rN . e', 'git grep --no-index SECRET']) {
      expect((await decideShell(policy, command, ws1, 'isolated')).decision).toBe('allow');
      const ran = await runCommand(command, { workspace: ws1, timeoutMs: 10_000, outputCap: 20_000, mode: 'bwrap', secretPaths: policy.secret_paths });
      expect(leaks(ran.output), ran.output).toEqual([]);
    }
  });

  it('a recursive read of folders without secrets, and copies and moves of them, stay allowed', async () => {
    const ws1 = fresh();
    for (const command of ['grep -rn plain src', 'grep -r -e plain -- src', 'diff -r src src', 'cp -r src copy', 'mv src moved', 'cp -r src .aws-notes', 'grep -rn x src/a.txt', 'git grep -n plain', 'sort src/a.txt', 'awk \'{ print $1 }\' src/a.txt']) {
      const decision = await decideShell(policy, command, ws1, 'process');
      expect(decision.decision, `${command} → ${decision.rule}: ${decision.reason}`).toBe('allow');
    }
    // Its names are not its contents, but a secret folder named as a folder is a secret path.
    expect(await decideShell(policy, 'ls .ssh', ws1, 'isolated')).toMatchObject({ decision: 'deny', rule: 'secret-path' });
  });

  it('a walk over a folder too large to read through is refused, not trusted', async () => {
    const ws1 = fresh();
    const big = path.join(ws1, 'big');
    mkdirSync(big);
    for (let i = 0; i < 20_001; i++) writeFileSync(path.join(big, `f${i}`), '');
    const decision = await decideShell(policy, 'mkdir -p e && diff -r big e', ws1, 'process');
    expect(decision).toMatchObject({ decision: 'deny', rule: 'recursive-secret' });
    // grep needs no walk: the sandbox's grep excludes the secret paths wherever they lie.
    expect(await decideShell(policy, 'grep -r x big', ws1, 'process')).toMatchObject({ decision: 'allow' });
  });
});

/** `set` options that change what later words mean or which processes the kill reaches. */
describe('shell options that undo the harness', () => {
  it('set -o keyword: an argument GIT_CONFIG_COUNT=0 becomes git\'s environment and the repository\'s fsmonitor runs', async () => {
    const repo = realpathSync(tempDir('tracegate-keyword-'));
    const canary = path.join(realpathSync(tempDir('tracegate-keyword-canary-')), 'ran');
    const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: repo, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
    git('init', '-q', '.');
    writeFileSync(path.join(repo, 'a.txt'), 'x\n');
    git('add', 'a.txt');
    git('config', 'core.fsmonitor', `touch ${canary}; false`);
    const command = 'set -o keyword; git status GIT_CONFIG_COUNT=0';
    // The harness's git configuration holds without the option, and falls with it.
    await runCommand('git status', { workspace: repo, timeoutMs: 10_000, outputCap: 10_000, mode: 'process' });
    expect(existsSync(canary)).toBe(false);
    await runCommand(command, { workspace: repo, timeoutMs: 10_000, outputCap: 10_000, mode: 'process' });
    expect(existsSync(canary)).toBe(true);
    for (const sandbox of SANDBOXES) {
      for (const variant of [command, 'set -k --; git status GIT_CONFIG_COUNT=0', 'set -ek -- x']) {
        expect(await decideShell(policy, variant, repo, sandbox), variant).toMatchObject({ decision: 'deny', rule: 'shell-option' });
      }
    }
  });

  it('set -o monitor: a background job gets a process group of its own (the sandbox kills its session too)', async () => {
    const dir = realpathSync(tempDir('tracegate-monitor-'));
    const command = 'set -o monitor; (sleep 1; touch late) &';
    // The trap is real: killing the command's process group alone leaves the job running.
    const bash = spawn('/bin/bash', ['-c', command], { cwd: dir, detached: true, stdio: 'ignore' });
    await new Promise((resolve) => bash.on('exit', resolve));
    try {
      process.kill(-bash.pid!, 'SIGKILL');
    } catch {
      // the command's own group is already empty: the job is elsewhere
    }
    // The job outlives the kill and touches its file a second later: wait for the file, not a fixed time.
    const late = path.join(dir, 'late');
    for (let i = 0; i < 600 && !existsSync(late); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(late)).toBe(true);
    for (const sandbox of SANDBOXES) {
      for (const variant of [command, 'set -m --; sleep 1 &', 'set -em -- x']) {
        expect(await decideShell(policy, variant, dir, sandbox), variant).toMatchObject({ decision: 'deny', rule: 'shell-option' });
      }
      expect((await decideShell(policy, 'set -o allexport', dir, sandbox)).decision).toBe('require_approval');
    }
  });

  it('the usual strict-mode options stay allowed', async () => {
    for (const command of ['set -euo pipefail', 'set -e -o pipefail -- a b', 'set -o errexit -o nounset', 'set -- a b']) {
      expect((await decideShell(policy, command, ws, 'process')).decision, command).toBe('allow');
    }
  });
});

/** Quoted words bash still evaluates: arithmetic operands of `[[` and the subscript `-v` tests. */
describe('arithmetic that runs commands from a quoted word', () => {
  const CASES: Array<[string, string]> = [
    ['[[ -eq ]] with a subscript', `[[ 'a[$(touch CANARY)]' -eq 0 ]]`],
    ['[[ -gt ]] with backquotes', "[[ 'x[`touch CANARY`]' -gt 1 ]]"],
    ['[[ -eq ]] with an expression on the right', `[[ 1 -eq '1 + a[$(touch CANARY)]' ]]`],
    ['[[ -eq ]] with a name whose value a loop set', `for X in 'a[$(touch CANARY)]'; do [[ 1 -eq X ]]; done`],
    ['test -v', `test -v 'a[$(touch CANARY)]'`],
    ['[ -v ]', `[ -v 'a[$(touch CANARY)]' ]`],
    ['[[ -v ]]', `[[ -v 'a[$(touch CANARY)]' ]]`],
  ];

  it.each(CASES)('%s runs the command for real, and is refused', async (_name, template) => {
    const dir = realpathSync(tempDir('tracegate-arith-'));
    const canary = path.join(realpathSync(tempDir('tracegate-arith-canary-')), 'ran');
    const command = template.replaceAll('CANARY', canary);
    await runCommand(command, { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'process' });
    expect(existsSync(canary), command).toBe(true);
    for (const sandbox of SANDBOXES) {
      expect(await decideShell(policy, command, dir, sandbox), command).toMatchObject({ decision: 'deny', rule: 'unprovable-arithmetic' });
    }
  });

  it('numbers, plain names and the other tests stay allowed', async () => {
    for (const command of ['[[ 3 -eq 3 ]] && echo y', '[[ 0x10 -eq 16 ]]', '[[ -v HOME ]]', 'test -v HOME', '[ 3 -lt 4 ]', '[[ -n "a[1]" ]]', 'test -f README.md || true']) {
      const decision = await decideShell(policy, command, ws, 'process');
      expect(decision.decision, `${command} → ${decision.rule}: ${decision.reason}`).toBe('allow');
    }
  });
});

/** `\<newline>` joins lines before bash splits words; the parser took it for a separator. */
describe('a line continuation inside a word', () => {
  const box = () => {
    const dir = realpathSync(tempDir('tracegate-continued-'));
    writeFileSync(path.join(dir, '.env'), 'TOKEN=CONTINUED-SECRET\n');
    writeFileSync(path.join(dir, 'keep.txt'), 'keep\n');
    return dir;
  };

  it('cat .e\\<newline>nv reads .env for real, and is refused', async () => {
    const command = 'cat .e\\\nnv';
    expect((await runCommand(command, { workspace: box(), timeoutMs: 10_000, outputCap: 1000, mode: 'process' })).output).toContain('CONTINUED-SECRET');
    for (const sandbox of SANDBOXES) expect(await decideShell(policy, command, box(), sandbox)).toMatchObject({ decision: 'deny', rule: 'unprovable-parse' });
  });

  it('find . -dele\\<newline>te deletes for real, and is refused', async () => {
    const dir = box();
    const command = 'find . -dele\\\nte';
    await runCommand(command, { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'process' });
    expect(existsSync(path.join(dir, 'keep.txt'))).toBe(false);
    for (const sandbox of SANDBOXES) expect(await decideShell(policy, command, box(), sandbox)).toMatchObject({ decision: 'deny', rule: 'unprovable-parse' });
  });

  it('inside double quotes and in a here-document the joined text is what is judged', async () => {
    for (const sandbox of SANDBOXES) {
      expect(await decideShell(policy, 'cat ".e\\\nnv"', box(), sandbox)).toMatchObject({ decision: 'deny', rule: 'secret-path' });
      expect(await decideShell(policy, 'python3 - <<EOF\nimport os; os.sys\\\ntem("id")\nEOF', box(), sandbox)).toMatchObject({ decision: 'deny', rule: 'inline-spawns-process' });
    }
  });

  it('a continuation between words, after a space, stays allowed', async () => {
    for (const command of ['ls \\\n  src', 'grep -rn x \\\n  keep.txt', 'echo a \\\n b', 'cat keep.txt\\\n  keep.txt']) {
      expect((await decideShell(policy, command, box(), 'process')).decision, command).toBe('allow');
    }
  });
});

/** A wrapper option's value read as the command: `env -u cat rm -rf src` runs rm, not cat. */
describe('wrapper options that take a value', () => {
  const COMMANDS = ['env -u cat rm -rf src', 'env --unset cat rm -rf src', 'env -iu cat rm -rf src', 'timeout -s cat rm -rf src', 'nice -n cat rm -rf src', 'stdbuf -o cat rm -rf src', 'timeout -k cat 5 rm -rf src'];

  it('env -u NAME runs the command after NAME for real', async () => {
    const dir = realpathSync(tempDir('tracegate-wrapper-'));
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src/a.txt'), 'x\n');
    await runCommand('env -u cat rm -rf src', { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'process' });
    expect(existsSync(path.join(dir, 'src'))).toBe(false);
  });

  it.each(COMMANDS)('%s is judged as rm', async (command) => {
    for (const sandbox of SANDBOXES) expect(await decideShell(policy, command, ws, sandbox), command).toMatchObject({ decision: 'deny', rule: 'recursive-delete' });
  });

  it('an interpreter behind env -u NAME is read like any other', async () => {
    for (const sandbox of SANDBOXES) {
      expect(await decideShell(policy, `env -u cat python3 -c 'import os; os.system("id")'`, ws, sandbox)).toMatchObject({ decision: 'deny', rule: 'inline-spawns-process' });
    }
  });

  it('wrappers with their values still run allowed commands', async () => {
    for (const command of ['env -u FOO ls', 'env -i LANG=C ls', 'timeout -s KILL 5 ls', 'timeout --kill-after 1 5 ls', 'nice -n 5 ls', 'stdbuf -oL ls', 'env -C src ls', 'env -- ls']) {
      const decision = await decideShell(policy, command, ws, 'process');
      expect(decision.decision, `${command} → ${decision.rule}: ${decision.reason}`).toBe('allow');
    }
  });
});

/** An outward link reached under a name the policy did not see: a folder cd'ed into by glob, or a copy. */
describe('outward links reached under another name', () => {
  const box = () => {
    const dir = realpathSync(tempDir('tracegate-relink-'));
    mkdirSync(path.join(dir, 'sub'));
    writeFileSync(path.join(outside, 'behind'), 'BEHIND-THE-RELINK\n');
    symlinkSync(path.join(outside, 'behind'), path.join(dir, 'sub/link'));
    writeFileSync(path.join(dir, 'top.txt'), 'hi\n');
    return dir;
  };
  const CASES: Array<[string, string]> = [
    ['cd to a glob, then read the link', 'cd s*b && cat link'],
    ['cd to a bracket glob, then read the link', 'cd [s]ub; cat link'],
    ['copy the folder, then read the copied link', 'cp -r sub sx && cat sx/link'],
    ['copy the folder with -a, then read the copied link', 'cp -a sub sx && cat sx/link'],
    ['move the folder, then read the link', 'mv sub sx && cat sx/link'],
    ['move the folder into another, then read the link', 'mkdir d && mv sub d/ && cat d/sub/link'],
  ];

  it.each(CASES)('%s: reads outside for real, and is refused', async (_name, command) => {
    const ran = await runCommand(command, { workspace: box(), timeoutMs: 10_000, outputCap: 1000, mode: 'process' });
    expect(ran.output).toContain('BEHIND-THE-RELINK');
    for (const sandbox of SANDBOXES) {
      const decision = await decideShell(policy, command, box(), sandbox);
      expect(decision.decision, `${command} → ${decision.rule}: ${decision.reason}`).toBe('deny');
      expect(decision.errorType).toBe('PATH_OUTSIDE_WORKSPACE');
    }
  });

  it('writing through the copied link is refused too', async () => {
    const dir = box();
    await runCommand('cp -r sub sx && echo OVERWRITTEN > sx/link', { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'process' });
    expect(readFileSync(path.join(outside, 'behind'), 'utf8')).toBe('OVERWRITTEN\n');
    writeFileSync(path.join(outside, 'behind'), 'BEHIND-THE-RELINK\n');
    expect((await decideShell(policy, 'cp -r sub sx && echo x > sx/link', dir, 'isolated')).decision).toBe('deny');
  });

  it('a path through a file is judged, not a crash of the tool layer', async () => {
    const dir = box();
    expect((await decideShell(policy, 'cat top.txt/x', dir, 'process')).decision).toBe('allow');
    // `cd */` goes to sub, whose names are harmless to list; what its link leads to is not.
    expect((await decideShell(policy, 'cd */ && ls', dir, 'process')).decision).toBe('allow');
    expect((await decideShell(policy, 'cd */ && cat link', dir, 'process')).decision).not.toBe('allow');
    expect((await decideToolCall(policy, { tool: 'read_file', args: { path: 'top.txt/x' } }, dir)).decision).toBe('allow');
  });

  it('copies, moves and cd by glob without outward links stay allowed', async () => {
    const dir = box();
    mkdirSync(path.join(dir, 'plain'));
    for (const command of ['cp -r plain p2', 'mv plain p3', 'cd pl* && ls', 'cp top.txt t2.txt']) {
      const decision = await decideShell(policy, command, dir, 'process');
      expect(decision.decision, `${command} → ${decision.rule}: ${decision.reason}`).toBe('allow');
    }
  });
});

/** A path attached to the last of bundled short flags: `sort -uo/tmp/x` is `sort -u -o /tmp/x`. */
describe('paths attached to bundled short flags', () => {
  const box = () => {
    const dir = realpathSync(tempDir('tracegate-bundle-'));
    writeFileSync(path.join(dir, 'top.txt'), 'BUNDLED-WRITE\n');
    writeFileSync(path.join(dir, '.env'), 'TOKEN=x\n');
    return dir;
  };

  it('sort -uoPATH writes outside and mv -ftDIR moves a file out, for real', async () => {
    const target = realpathSync(tempDir('tracegate-bundle-out-'));
    const dir = box();
    await runCommand(`sort -uo${target}/written top.txt && mv -ft${target} top.txt`, { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'process' });
    expect(readFileSync(path.join(target, 'written'), 'utf8')).toBe('BUNDLED-WRITE\n');
    expect(existsSync(path.join(target, 'top.txt'))).toBe(true);
    expect(existsSync(path.join(dir, 'top.txt'))).toBe(false);
  });

  it.each([
    ['sort -uo to an outside file', 'sort -uo/tmp/x top.txt', 'path-outside-workspace'],
    ['cp -at to an outside folder', 'cp -at/tmp top.txt', 'path-outside-workspace'],
    ['mv -ft to an outside folder', 'mv -ft/tmp top.txt', 'path-outside-workspace'],
    ['sort -uo over a secret', 'sort -uo.env top.txt', 'secret-path'],
    ['sort -uo over a secret whose name starts with a letter', 'sort -uosecrets.json top.txt', 'secret-path'],
    ['grep -Ff reading a secret', 'grep -Ff.env top.txt', 'secret-path'],
  ])('%s is refused', async (_name, command, rule) => {
    for (const sandbox of SANDBOXES) expect(await decideShell(policy, command, box(), sandbox), command).toMatchObject({ decision: 'deny', rule });
  });

  it('bundled flags with inside values stay allowed', async () => {
    for (const command of ['sort -uo./out.txt top.txt', 'ls -lah', 'head -n5 top.txt', 'grep -e.x top.txt', 'tail -n20 top.txt']) {
      const decision = await decideShell(policy, command, box(), 'process');
      expect(decision.decision, `${command} → ${decision.rule}: ${decision.reason}`).toBe('allow');
    }
  });
});

/** `.env -> config/local.env`: the secret's name is on the link, not on the file it leads to. */
describe('a secret-named symlink to a file inside the workspace', () => {
  const box = () => {
    const dir = realpathSync(tempDir('tracegate-secretlink-'));
    mkdirSync(path.join(dir, 'config'));
    writeFileSync(path.join(dir, 'config/local.env'), 'TOKEN=LINKED-SECRET\n');
    symlinkSync('config/local.env', path.join(dir, '.env'));
    return dir;
  };

  it('is refused by its name, not judged by the file it resolves to', async () => {
    const dir = box();
    expect((await runCommand('cat .env', { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'process' })).output).toContain('LINKED-SECRET');
    for (const sandbox of SANDBOXES) expect(await decideShell(policy, 'cat .env', dir, sandbox)).toMatchObject({ decision: 'deny', rule: 'secret-path' });
    expect(await decideToolCall(policy, { tool: 'read_file', args: { path: '.env' } }, dir)).toMatchObject({ decision: 'deny', rule: 'secret-path' });
  });

  it.skipIf(!hasBubblewrap())('under bubblewrap the file it leads to is masked, for code the policy does not read', async () => {
    const dir = box();
    const ran = await runCommand('cat .env; cat config/local.env', { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'bwrap', secretPaths: policy.secret_paths });
    expect(ran.output).not.toContain('LINKED-SECRET');
  });
});

/** A program file written in the same command under another name for it (a link inside the workspace). */
describe('a script written through an alias of its folder', () => {
  it('cp over lnk/a.py, then python3 src/a.py, is read as written first (both names are one file)', async () => {
    const dir = realpathSync(tempDir('tracegate-alias-'));
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src/a.py'), 'print(1)\n');
    writeFileSync(path.join(dir, 'evil.txt'), "open('ran-evil', 'w')\n");
    symlinkSync('src', path.join(dir, 'lnk'));
    const command = 'cp evil.txt lnk/a.py && python3 src/a.py';
    // The trap is real: what runs is not what the policy found on disk.
    await runCommand(command, { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'process' });
    expect(existsSync(path.join(dir, 'ran-evil'))).toBe(true);
    for (const variant of [command, 'cp evil.txt src/a.py && python3 lnk/a.py']) {
      expect(await decideShell(policy, variant, dir, 'isolated'), variant).toMatchObject({ decision: 'require_approval', rule: 'program-file-written' });
    }
  });
});

describe('a folder to run in given by a glob', () => {
  it('env -C s*b reads the outward link of the folder bash expands to, and asks', async () => {
    const dir = realpathSync(tempDir('tracegate-chdir-glob-'));
    mkdirSync(path.join(dir, 'sub'));
    writeFileSync(path.join(outside, 'chdir-behind'), 'CHDIR-GLOB-BEHIND\n');
    symlinkSync(path.join(outside, 'chdir-behind'), path.join(dir, 'sub/link'));
    const ran = await runCommand('env -C s*b cat link', { workspace: dir, timeoutMs: 10_000, outputCap: 1000, mode: 'process' });
    expect(ran.output).toContain('CHDIR-GLOB-BEHIND');
    for (const sandbox of SANDBOXES) {
      for (const command of ['env -C s*b cat link', 'git -C s?b diff --no-index -- link top.txt']) {
        expect((await decideShell(policy, command, dir, sandbox)).decision, command).not.toBe('allow');
      }
    }
  });
});
