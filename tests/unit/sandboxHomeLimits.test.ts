import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBubblewrap, runCommand, type SandboxMode } from '../../harness/index.js';
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
const ALLOCATE_1GIB = `python3 -c "
import mmap
try:
    mmap.mmap(-1, 1 << 30)
    print('allocated')
except (OSError, MemoryError):
    print('refused')
"`;

describe.each(MODES)('sandbox %s: resource limits', (mode) => {
  it('bounds the processes and the memory of a command by the policy limits', async () => {
    const ws = workspace();
    const limits = { processes: 40, memory_mib: 512 };
    const forks = await run(FORK_LOOP, mode, ws, limits);
    const forked = Number(/forked (\d+)/.exec(forks.output)?.[1]);
    expect(forked, forks.output).toBeGreaterThan(0);
    expect(forked, forks.output).toBeLessThan(40);
    expect((await run(ALLOCATE_1GIB, mode, ws, limits)).output.trim()).toBe('refused');
  }, 120_000);

  it('the default limits leave room for a test runner (node with WebAssembly, forks, a 1 GiB map)', async () => {
    const ws = workspace();
    expect(DEFAULT_COMMAND_LIMITS.processes).toBeGreaterThanOrEqual(150);
    expect((await run(`node -e 'new WebAssembly.Memory({ initial: 1 }); console.log("wasm ok")'`, mode, ws)).output.trim()).toBe('wasm ok');
    expect((await run(FORK_LOOP, mode, ws)).output.trim()).toBe('forked 150');
    expect((await run(ALLOCATE_1GIB, mode, ws)).output.trim()).toBe('allocated');
  }, 120_000);
});
