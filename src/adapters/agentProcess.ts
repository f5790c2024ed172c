import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { dropCutToken } from '../schema/redact.js';
import { ErrorLineScanner } from './errorLine.js';

/** How much of an agent's output is kept; the rest is drained and counted, never buffered. */
export const STDOUT_CAP_BYTES = 1024 * 1024;
export const STDERR_TAIL_BYTES = 16 * 1024;

export interface AgentProcessSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * `bwrap`: the agent runs as the only process tree of its own pid namespace (bubblewrap), so it
   * sees no process outside it (no /proc/<ppid>/environ of tracegate) and nothing it starts, not even
   * a double-forked daemon, outlives it. `process` (default): a plain process group.
   */
  sandbox?: 'process' | 'bwrap';
}

/** The agent command under bubblewrap: the whole file system as it is, a new pid namespace and /proc. */
function bwrapArgv(argv: string[], cwd: string): string[] {
  return ['bwrap', '--die-with-parent', '--unshare-pid', '--dev-bind', '/', '/', '--proc', '/proc', '--chdir', cwd, '--', ...argv];
}

/**
 * Why `program` cannot be executed (ENOENT, EACCES), as spawn would say, or null. Under bubblewrap
 * the exec happens inside bwrap, whose failure would look like the agent's own exit code 1.
 */
function execProblem(program: string, cwd: string, env: Record<string, string>): string | null {
  const candidates = program.includes('/') ? [path.resolve(cwd, program)] : (env['PATH'] ?? '').split(':').filter(Boolean).map((dir) => path.join(dir, program));
  let code = 'ENOENT';
  for (const file of candidates) {
    try {
      if (!statSync(file).isFile()) {
        code = 'EACCES';
        continue;
      }
      accessSync(file, constants.X_OK);
      return null;
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException).code;
      if (errno && errno !== 'ENOENT') code = errno;
    }
  }
  return `spawn ${program} ${code}`;
}

export interface AgentProcessResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Set when the program could not be started (ENOENT, EACCES). */
  spawnError: string | null;
  stdout: string;
  stdoutBytes: number;
  stdoutTruncated: boolean;
  stderrTail: string;
  /** The tail lost the start of stderr (its first line may begin mid-token). */
  stderrTruncated: boolean;
  /** The line of all of stderr that says why the agent died (errorLine.ts), not redacted yet. */
  stderrErrorLine: string | null;
  started: string;
  ended: string;
}

/** Process groups still alive, killed if tracegate itself exits first. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of liveGroups) killGroup(pid);
  });
}

/**
 * Runs one agent program: its own process group (detached), input on stdin, capped output. The
 * whole group is killed on the time limit, on abort, and when the agent exits (so a forked child
 * that outlives the agent goes too); the result says which of these ended it.
 */
export function runAgentProcess(spec: AgentProcessSpec): Promise<AgentProcessResult> {
  installExitHook();
  const started = new Date().toISOString();
  const bwrap = spec.sandbox === 'bwrap';
  if (bwrap) {
    const problem = execProblem(spec.argv[0]!, spec.cwd, spec.env);
    if (problem) {
      const now = new Date().toISOString();
      return Promise.resolve({ exitCode: null, signal: null, timedOut: false, spawnError: problem, stdout: '', stdoutBytes: 0, stdoutTruncated: false, stderrTail: '', stderrTruncated: false, stderrErrorLine: null, started, ended: now });
    }
  }
  const argv = bwrap ? bwrapArgv(spec.argv, spec.cwd) : spec.argv;
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = Buffer.alloc(0);
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let stderrTruncated = false;
    const stderrText = new StringDecoder('utf8');
    const errorLine = new ErrorLineScanner();
    let timedOut = false;
    let exit: { code: number | null; signal: string | null } | null = null;
    let spawnError: string | null = null;
    let settled = false;

    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      spec.signal.removeEventListener('abort', onAbort);
      if (child.pid) liveGroups.delete(child.pid);
      const keep = Math.min(stdout.length, STDOUT_CAP_BYTES);
      errorLine.push(stderrText.end());
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        spawnError,
        // A cut answer loses its last, possibly partial, token: no half secret for redaction to miss.
        stdout: stdoutBytes > STDOUT_CAP_BYTES ? dropCutToken(stdout.subarray(0, keep).toString('utf8'), 'end') : stdout.subarray(0, keep).toString('utf8'),
        stdoutBytes,
        stdoutTruncated: stdoutBytes > STDOUT_CAP_BYTES,
        stderrTail: stderr.toString('utf8'),
        stderrTruncated,
        stderrErrorLine: errorLine.finish(),
        started,
        ended: new Date().toISOString(),
      });
    };
    const stop = () => {
      if (child.pid) killGroup(child.pid);
    };
    const onAbort = () => stop();
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, spec.timeoutMs);
    spec.signal.addEventListener('abort', onAbort, { once: true });
    if (spec.signal.aborted) stop();
    if (child.pid) liveGroups.add(child.pid);

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdout.length < STDOUT_CAP_BYTES) stdout = Buffer.concat([stdout, chunk.subarray(0, STDOUT_CAP_BYTES - stdout.length)]);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errorLine.push(stderrText.write(chunk));
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_TAIL_BYTES) {
        stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
        stderrTruncated = true;
      }
    });
    child.stdin.on('error', () => undefined); // an agent that never reads its input closes the pipe early
    child.stdin.end(spec.stdin);
    child.on('error', (error) => {
      spawnError = error.message;
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // The agent is done: whatever it left behind in its group goes, so the pipes can close.
      stop();
      // A descendant that left the group (setsid) may still hold the pipes: do not wait for it.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, 2_000).unref();
    });
    child.on('close', finish);
  });
}
