import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseSandbox, hasBubblewrap, runCommand, type SandboxMode } from '../../harness/index.js';
import { tempDir } from '../helpers/cli.js';

const run = (command: string, options: { timeoutMs?: number; outputCap?: number; mode?: SandboxMode; workspace?: string } = {}) => {
  const workspace = options.workspace ?? realpathSync(tempDir('tracegate-sandbox-'));
  return runCommand(command, {
    workspace,
    timeoutMs: options.timeoutMs ?? 10_000,
    outputCap: options.outputCap ?? 8000,
    mode: options.mode ?? 'process',
  }).then((result) => ({ ...result, workspace }));
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function eventually(check: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('sandbox: processes', () => {
  it('kills a process tree that ignores SIGTERM and forks, on timeout', async () => {
    const script = [
      "trap '' TERM",
      "(trap '' TERM; sleep 60) & echo $! >> pids",
      "(trap '' TERM; (sleep 60) & echo $! >> pids; wait) & echo $! >> pids",
      'echo $$ >> pids',
      'sleep 60',
    ].join('\n');
    const started = Date.now();
    const result = await run(script, { timeoutMs: 700 });
    expect(result.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    const pids = readFileSync(path.join(result.workspace, 'pids'), 'utf8').trim().split('\n').map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(4);
    expect(await eventually(() => pids.every((pid) => !alive(pid)))).toBe(true);
  });

  it('leaves no background child behind after a normal exit', async () => {
    const result = await run('sleep 60 & echo $! > bg.pid; echo started');
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.output).toContain('started');
    const pid = Number(readFileSync(path.join(result.workspace, 'bg.pid'), 'utf8'));
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it.each([
    ['timeout makes itself a process group leader', 'timeout 60 sleep 60 & echo $! > bg.pid; echo started'],
    ['set -m gives each job a process group', 'set -m; sleep 60 & echo $! > bg.pid; echo started'],
  ])('leaves no child behind that left the process group: %s', async (_name, command) => {
    const result = await run(command);
    expect(result.output).toContain('started');
    const pid = Number(readFileSync(path.join(result.workspace, 'bg.pid'), 'utf8'));
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it('runs in the workspace with an environment built from an allow list', async () => {
    process.env['TRACEGATE_TEST_SECRET_TOKEN'] = 'planted-value-123456';
    try {
      const result = await run('pwd; env');
      const lines = result.output.trim().split('\n');
      expect(lines[0]).toBe(result.workspace);
      const names = lines.slice(1).map((l) => l.split('=')[0]);
      expect(result.output).not.toContain('planted-value-123456');
      expect(names).not.toContain('TRACEGATE_TEST_SECRET_TOKEN');
      const git = (n: string) => /^GIT_[A-Z_0-9]+$/.test(n) || n === 'TRACEGATE_WORKSPACE';
      const home = (n: string) => n === 'HOME' || /^XDG_(CONFIG|CACHE|DATA|STATE)_HOME$/.test(n);
      expect(names.filter((n) => !['PATH', 'LANG', 'LC_ALL', 'TERM', 'PWD', 'SHLVL', '_', 'OLDPWD', 'PYTHONDONTWRITEBYTECODE'].includes(n!) && !git(n!) && !home(n!))).toEqual([]);
      // HOME is a folder of the command's own, not the workspace (see sandboxHomeLimits.test.ts).
      expect(lines).not.toContain(`HOME=${result.workspace}`);
    } finally {
      delete process.env['TRACEGATE_TEST_SECRET_TOKEN'];
    }
  });

  it('caps output and says so', async () => {
    const result = await run('seq 1 100000', { outputCap: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBe(1000);
    expect(result.outputChars).toBeGreaterThan(500_000);
  });

  it('reports a failing command with its exit code', async () => {
    const result = await run('exit 3');
    expect(result).toMatchObject({ exitCode: 3, timedOut: false });
  });
});

const bwrapReady = hasBubblewrap();
if (!bwrapReady) {
  const where = process.env['CI'] ? 'CI must install bubblewrap (.ci/run does)' : 'install Debian\'s bubblewrap to run them';
  console.warn(`\n*** bubblewrap is missing: the bwrap sandbox tests are SKIPPED; ${where} ***\n`);
  if (process.env['CI']) throw new Error('bubblewrap is required in CI');
}

describe.skipIf(!bwrapReady)('sandbox: bubblewrap mode', () => {
  it('makes the system read-only, keeps the workspace writable and cuts the network', async () => {
    const result = await run("touch /etc/tracegate-probe 2>&1; echo written > in-workspace.txt; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; cat /etc/hostname >/dev/null && echo can-read", { mode: 'bwrap' });
    expect(result.output).toMatch(/Read-only file system/);
    expect(existsSync('/etc/tracegate-probe')).toBe(false);
    expect(readFileSync(path.join(result.workspace, 'in-workspace.txt'), 'utf8')).toBe('written\n');
    expect(result.output).toMatch(/^lo$/m);
    // The network namespace has only the loopback device.
    expect(result.output).not.toMatch(/^(eth|ens|enp|wl|ifb)/m);
    expect(result.mode).toBe('bwrap');
  });

  it('shows no home folder, hides private system files and masks the workspace\'s secrets', async () => {
    const workspace = realpathSync(tempDir('tracegate-sandbox-'));
    writeFileSync(path.join(workspace, '.env'), 'TOKEN=planted-secret-42\n');
    mkdirSync(path.join(workspace, '.ssh'));
    writeFileSync(path.join(workspace, '.ssh/id_rsa'), 'PRIVATE KEY planted\n');
    writeFileSync(path.join(workspace, 'plain.txt'), 'visible\n');
    const result = await runCommand(
      'cat .env; ls .ssh; cat plain.txt; ls /home /root /work 2>&1 | head -3; cat /etc/shadow | wc -c; echo written > .env 2>&1 || echo env-readonly',
      { workspace, timeoutMs: 10_000, outputCap: 8000, mode: 'bwrap', secretPaths: ['.env', '.ssh/**'] },
    );
    expect(result.output).not.toContain('planted-secret-42');
    expect(result.output).not.toContain('id_rsa');
    expect(result.output).toContain('visible');
    expect(result.output).toMatch(/No such file or directory/);
    expect(result.output).toMatch(/^0$/m);
    expect(result.output).toContain('env-readonly');
    // The real files are untouched.
    expect(readFileSync(path.join(workspace, '.env'), 'utf8')).toBe('TOKEN=planted-secret-42\n');
  });

  it('runs interpreters from the system and finds git through the harness shim', async () => {
    const result = await run("python3 -c 'print(6 * 7)'; node -e 'console.log(6 * 7)'; command -v git", { mode: 'bwrap' });
    expect(result.output).toMatch(/^42\n42\n.*harness\/git\/bin\/git$/m);
  });

  it('auto picks bubblewrap here and says why', () => {
    expect(chooseSandbox('auto')).toMatchObject({ mode: 'bwrap', requested: 'auto', reason: expect.stringMatching(/bubblewrap/) });
    expect(chooseSandbox('process')).toMatchObject({ mode: 'process' });
  });

  it('still kills the tree on timeout', async () => {
    const result = await run("trap '' TERM; (sleep 60) & sleep 60", { mode: 'bwrap', timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
  });
});

describe('sandbox: resource limits', () => {
  it('stops a command that would fill the disk', async () => {
    const result = await run('seq 1 100000000 > big.txt; echo "status $?"', { timeoutMs: 20_000 });
    expect(result.output).toMatch(/status (153|1)/);
    const { rmSync, statSync } = await import('node:fs');
    expect(statSync(path.join(result.workspace, 'big.txt')).size).toBeLessThanOrEqual(100 * 1024 * 1024);
    rmSync(result.workspace, { recursive: true, force: true });
  });

  it('passes the command through untouched, quotes and all', async () => {
    const result = await run(`printf '%s|' "a b" 'c"d' $'e\\tf'`);
    expect(result.output).toBe('a b|c"d|e\tf|');
  });
});
