import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sessionMembers } from './processTree.js';
import { gitEnvironment, gitShimDir } from '../git/gitEnv.js';
import { publicTemplatesEnv } from '../git/secretBlobs.js';
import { bwrapArgs } from './bwrapArgs.js';
import { openCommandCgroup, ulimitLine, type CommandCgroup } from './commandLimits.js';
import { cutAtToken } from '../../src/schema/redact.js';
import { DEFAULT_COMMAND_LIMITS, type CommandLimits } from '../../src/schema/policy.js';

export type SandboxMode = 'process' | 'bwrap';

export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** stdout and stderr interleaved as they arrived, cut at the output cap. */
  output: string;
  outputChars: number;
  truncated: boolean;
  mode: SandboxMode;
}

export interface RunOptions {
  workspace: string;
  timeoutMs: number;
  outputCap: number;
  mode: SandboxMode;
  /** Workspace globs masked with an empty file under bubblewrap (the policy's secret paths). */
  secretPaths?: readonly string[];
  /** Processes and memory of the command (the policy's `limits`; DEFAULT_COMMAND_LIMITS when absent). */
  limits?: CommandLimits;
  signal?: AbortSignal;
}

/** HOME under bubblewrap: inside its private /tmp, so it is new and empty for every command. */
const BWRAP_HOME = '/tmp/home';

/**
 * The child's whole environment: nothing of the parent's leaks through (no keys, no tokens). git is
 * found first in harness/git/bin, the shim that runs it with the workspace's programs switched off.
 * HOME (and the XDG folders in it) is an empty folder of the command's own, never the workspace:
 * dotfiles a workspace plants (`.jq`, `.bashrc`, a Python user site with usercustomize.py) must not act.
 */
export function sandboxEnv(workspace: string, secretPaths: readonly string[] = [], home: string): Record<string, string> {
  return {
    ...gitEnvironment(workspace),
    // The git shim refuses to print a secret the repository tracks or once tracked (its objects are not masked).
    ...(secretPaths.length > 0 ? { TRACEGATE_SECRET_PATHS: secretPaths.join('\n'), ...publicTemplatesEnv(workspace, secretPaths) } : {}),
    PATH: `${gitShimDir()}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_CACHE_HOME: `${home}/.cache`,
    XDG_DATA_HOME: `${home}/.local/share`,
    XDG_STATE_HOME: `${home}/.local/state`,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    PWD: workspace,
    // No __pycache__: a .pyc written in the same second as an edit of the same size would hide the edit.
    PYTHONDONTWRITEBYTECODE: '1',
  };
}

let bwrapProbe: { ok: boolean; detail: string } | undefined;

/** Whether bubblewrap is installed and can create its namespaces here, and if not, why not. */
export function probeBubblewrap(): { ok: boolean; detail: string } {
  if (bwrapProbe === undefined) {
    const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', 'true'], {
      encoding: 'utf8',
      timeout: 5000,
    });
    const err = probe.error as NodeJS.ErrnoException | undefined;
    bwrapProbe =
      probe.status === 0
        ? { ok: true, detail: 'bubblewrap can create its namespaces here' }
        : err?.code === 'ENOENT'
          ? { ok: false, detail: 'bubblewrap (bwrap) is not installed' }
          : { ok: false, detail: `bwrap cannot create namespaces here: ${(probe.stderr || err?.message || `exit ${probe.status}`).trim().slice(0, 200)}` };
  }
  return bwrapProbe;
}

export function hasBubblewrap(): boolean {
  return probeBubblewrap().ok;
}

function commandLine(command: string, options: RunOptions, cgroup: CommandCgroup | null): [string, string[]] {
  // An outer shell makes HOME and sets the limits, then execs the real one with the command as an
  // argument (never spliced into a string, so no quoting can escape it).
  const setup = `mkdir -p -m 700 "$HOME" && ${ulimitLine(options.limits ?? DEFAULT_COMMAND_LIMITS)} && exec /bin/bash --noprofile --norc -c "$1"`;
  const shell = ['/bin/bash', '--noprofile', '--norc', '-c', setup, 'tracegate-sandbox', command];
  const line = options.mode === 'bwrap' ? ['bwrap', ...bwrapArgs(path.resolve(options.workspace), options.secretPaths ?? []), ...shell] : shell;
  // The cgroups are joined outside bubblewrap (no /sys inside), before anything else starts.
  const join = 'n=$0; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';
  const joined = cgroup ? ['/bin/sh', '-c', join, String(cgroup.procs.length), ...cgroup.procs, ...line] : line;
  return [joined[0]!, joined.slice(1)];
}

/**
 * Processes that left the command's process group but not its session (`timeout` makes itself a
 * group leader, `set -m` gives each job a group): the child was started detached, so its pid is the
 * session id of everything it started that did not call setsid (which the policy refuses). Linux.
 */
function killSession(sid: number, sig: NodeJS.Signals): void {
  for (const pid of [sid, ...sessionMembers(sid)]) {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

/**
 * Runs one shell command in the workspace, in a process group of its own. On timeout (or abort)
 * the whole group gets SIGTERM, then SIGKILL after a short grace; after a normal exit the group is
 * killed too, so background children never outlive the call.
 */
export function runCommand(command: string, options: RunOptions): Promise<CommandResult> {
  let line: [string, string[]];
  const cgroup = openCommandCgroup(options.limits ?? DEFAULT_COMMAND_LIMITS);
  // Under bubblewrap HOME lives in the sandbox's own /tmp; the process sandbox gets a fresh folder.
  const hostHome = options.mode === 'bwrap' ? null : mkdtempSync(path.join(tmpdir(), 'tracegate-home-'));
  // The result waits for the cgroups' removal: nothing of the command outlives the call.
  const cleanUp = async () => {
    if (hostHome) rmSync(hostHome, { recursive: true, force: true });
    await cgroup?.close();
  };
  try {
    line = commandLine(command, options, cgroup);
  } catch (error) {
    // The sandbox cannot be set up as promised (a secret scan cut short): the command does not run.
    const output = `failed to start: ${(error as Error).message}`;
    return cleanUp().then(() => ({ exitCode: null, signal: null, timedOut: false, output, outputChars: output.length, truncated: false, mode: options.mode }));
  }
  const [file, args] = line;
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.workspace,
      env: sandboxEnv(options.workspace, options.secretPaths, hostHome ?? BWRAP_HOME),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let outputChars = 0;
    let timedOut = false;
    let settled = false;
    const collect = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      outputChars += text.length;
      // One character past the cap, to tell whether the cut splits a token (see cutAtToken).
      if (output.length <= options.outputCap) output += text.slice(0, options.outputCap + 1 - output.length);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);

    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // the group is already gone
      }
      killSession(child.pid, sig);
    };
    const stop = () => {
      timedOut = true;
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), 300).unref();
    };
    const timer = setTimeout(stop, options.timeoutMs);
    const onAbort = () => stop();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (exitCode: number | null, signal: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      killGroup('SIGKILL');
      void cleanUp().then(() => resolve({
        exitCode,
        signal,
        timedOut,
        output: cutAtToken(output, options.outputCap),
        outputChars,
        truncated: outputChars > options.outputCap,
        mode: options.mode,
      }));
    };
    child.on('error', (error) => {
      output += `failed to start: ${error.message}`;
      finish(null, null);
    });
    // On exit the group is killed, which closes pipes held by background children; 'close' then
    // delivers the last output. A process that escaped the group cannot hold us past the grace.
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    child.on('exit', (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      killGroup('SIGKILL');
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(exitCode, exitSignal);
      }, 1000).unref();
    });
    child.on('close', () => finish(exitCode, exitSignal));
  });
}
