import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBubblewrap, runCommand, type SandboxMode } from '../../harness/index.js';
import { cgroupControllers, openCommandCgroup } from '../../harness/sandbox/commandLimits.js';
import { DEFAULT_COMMAND_LIMITS, type CommandLimits } from '../../src/schema/policy.js';
import { tempDir } from '../helpers/cli.js';

const MODES: SandboxMode[] = hasBubblewrap() ? ['process', 'bwrap'] : ['process'];

const run = (command: string, mode: SandboxMode, workspace: string, limits?: CommandLimits) =>
  runCommand(command, { workspace, timeoutMs: 60_000, outputCap: 8000, mode, ...(limits ? { limits } : {}) });

const workspace = () => realpathSync(tempDir('tracegate-ws-'));

describe.each(MODES)('sandbox %s: a HOME of its own', (mode) => {
  it('planted dotfiles in the workspace do not act: ~/.jq, usercustomize.py, ~/.bashrc', async () => {
    const ws = workspace();
    writeFileSync(path.join(ws, '.jq'), 'def keys: "HIJACKED";\n');
    writeFileSync(path.join(ws, '.bashrc'), `touch ${ws}/bashrc-ran\n`);
    // Python's user site under a HOME that is the workspace, for the Python the sandbox runs.
    const version = (await run(`python3 -c "import sys; print('%d.%d' % sys.version_info[:2])"`, mode, ws)).output.trim();
    expect(version).toMatch(/^3\.\d+$/);
    const site = path.join(ws, '.local', 'lib', `python${version}`, 'site-packages');
    mkdirSync(site, { recursive: true });
    writeFileSync(path.join(site, 'usercustomize.py'), `open(${JSON.stringify(path.join(ws, 'python-ran'))}, 'w').write('x')\n`);

    expect((await run(`echo '{"a":1}' | jq -c keys`, mode, ws)).output.trim()).toBe('["a"]');
    expect((await run(`python3 -c "print('py ok')"`, mode, ws)).output.trim()).toBe('py ok');
    await run('bash -i -c true', mode, ws);
    expect(existsSync(path.join(ws, 'python-ran')), 'usercustomize.py ran').toBe(false);
    expect(existsSync(path.join(ws, 'bashrc-ran')), '.bashrc ran').toBe(false);
  }, 120_000);

  it('HOME and the XDG folders are empty, writable, outside the workspace, and fresh for every command', async () => {
    const ws = workspace();
    const first = await run('echo "$HOME|$XDG_CONFIG_HOME|$XDG_CACHE_HOME"; ls -A "$HOME" | wc -l; touch "$HOME/left-behind" && echo wrote', mode, ws);
    const [home, config, cache] = first.output.split('\n')[0]!.split('|');
    expect(home).not.toBe(ws);
    expect(path.relative(ws, home!).startsWith('..')).toBe(true);
    expect(config!.startsWith(`${home}/`)).toBe(true);
    expect(cache!.startsWith(`${home}/`)).toBe(true);
    expect(first.output).toMatch(/^\S+\n0\nwrote\n$/);
    const second = await run('ls -A "$HOME" | wc -l', mode, ws);
    expect(second.output.trim()).toBe('0');
    if (mode === 'process') expect(existsSync(home!), 'the HOME is removed after the command').toBe(false);
  }, 60_000);
});

const FORK_LOOP = `python3 -c "
import os, time
n = 0
for i in range(150):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    n += 1
print('forked', n)
"`;
/** Allocates (and touches) `mib` MiB in one piece. */
const allocate = (mib: number) => `python3 -c "
try:
    b = b'x' * (${mib} << 20)
    print('allocated')
except MemoryError:
    print('refused')
"`;
/**
 * Two processes of one command, each holding 600 MiB at once: each fits a 1 GiB RLIMIT_DATA, the
 * two together do not fit a 1 GiB memory cgroup (the OOM killer ends one of them). Each waits on
 * the other's marker file, never on time.
 */
const TWO_HOLDERS = `python3 -c "
import os, sys, time
me, other = sys.argv[1], sys.argv[2]
b = b'x' * (600 << 20)
open(me, 'w').close()
for _ in range(600):
    if os.path.exists(other): break
    time.sleep(0.1)
else:
    sys.exit(3)
print(me, 'held')
" a b & python3 -c "
import os, sys, time
for _ in range(600):
    if os.path.exists('a'): break
    time.sleep(0.1)
b = b'x' * (600 << 20)
open('b', 'w').close()
print('b held')
"; wait`;

describe.each(MODES)('sandbox %s: resource limits', (mode) => {
  it('bounds the processes and the memory of a command by the policy limits: a fork loop stops, a 1.5 GiB allocation fails', async () => {
    const ws = workspace();
    const limits = { processes: 40, memory_mib: 1024, address_space_mib: 16 * 1024 };
    const forks = await run(FORK_LOOP, mode, ws, limits);
    const forked = Number(/forked (\d+)/.exec(forks.output)?.[1]);
    expect(forked, forks.output).toBeGreaterThan(0);
    expect(forked, forks.output).toBeLessThan(40);
    expect((await run(allocate(1536), mode, ws, limits)).output.trim()).toBe('refused');
    // The address space is bounded too (a backstop for shared maps, which RLIMIT_DATA does not count).
    const narrow = { ...limits, address_space_mib: 512 };
    expect((await run(`python3 -c "import mmap; mmap.mmap(-1, 1 << 30)" 2>&1 | tail -1`, mode, ws, narrow)).output).toMatch(/Error/);
  }, 120_000);

  it.skipIf(!cgroupControllers().includes('memory'))('where a memory cgroup can be made, memory_mib bounds the command\'s processes together', async () => {
    const ws = workspace();
    const result = await run(TWO_HOLDERS, mode, ws, { processes: 64, memory_mib: 1024, address_space_mib: 16 * 1024 });
    expect(result.output, 'each process alone fits').not.toBe('');
    expect(result.output.includes('a held') && result.output.includes('b held'), result.output).toBe(false);
    const roomy = await run(TWO_HOLDERS, mode, workspace(), { processes: 64, memory_mib: 2048, address_space_mib: 16 * 1024 });
    expect(roomy.output.split('\n').sort().join(' ').trim()).toBe('a held b held');
  }, 120_000);

  it.skipIf(cgroupControllers().length === 0)('the command\'s cgroups are gone when its result comes, a background child killed with them', async () => {
    const probe = openCommandCgroup({ ...DEFAULT_COMMAND_LIMITS })!;
    await probe.close();
    const parents = probe.procs.map((p) => path.dirname(path.dirname(p)));
    const ours = () => parents.flatMap((dir) => readdirSync(dir).filter((name) => name.startsWith(`tracegate-${process.pid}-`)));
    expect((await run('sleep 60 & echo started', mode, workspace())).output.trim()).toBe('started');
    expect(ours()).toEqual([]);
  }, 60_000);

  it('the default limits leave room for a test runner (node with WebAssembly, forks, a 1 GiB allocation)', async () => {
    const ws = workspace();
    expect(DEFAULT_COMMAND_LIMITS.processes).toBeGreaterThanOrEqual(150);
    expect((await run(`node -e 'new WebAssembly.Memory({ initial: 1 }); console.log("wasm ok")'`, mode, ws)).output.trim()).toBe('wasm ok');
    expect((await run(FORK_LOOP, mode, ws)).output.trim()).toBe('forked 150');
    expect((await run(allocate(1024), mode, ws)).output.trim()).toBe('allocated');
  }, 120_000);
});
