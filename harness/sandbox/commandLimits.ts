import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandLimits } from '../../src/schema/policy.js';

/** Largest file a command may write, in KiB: a runaway `seq … > file` cannot fill the disk. */
export const MAX_FILE_KIB = 100 * 1024;

/**
 * The `ulimit` line the sandbox's outer shell runs before the command: file size, processes
 * (RLIMIT_NPROC, which counts every process of the user and which root ignores) and the virtual
 * memory of each process (RLIMIT_AS). Soft and hard, so the command cannot raise them.
 */
export function ulimitLine(limits: CommandLimits): string {
  return `ulimit -f ${MAX_FILE_KIB} -u ${limits.processes} -v ${limits.memory_mib * 1024}`;
}

/** A pids cgroup of one command's own: its processes and threads, whoever runs it, are at most pids.max. */
export interface PidsCgroup {
  /** The file a process writes its pid into to join (before it starts anything). */
  procs: string;
  /** Kills what is left in the group and removes it. */
  close(): void;
}

let pidsRoot: string | null | undefined;
let made = 0;

/** The pids cgroup (v1 or v2) this process is in, when tracegate may make groups under it, else null. */
function pidsCgroupRoot(): string | null {
  if (pidsRoot !== undefined) return pidsRoot;
  pidsRoot = null;
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return null;
  }
  const v1 = lines.map((l) => /^\d+:([^:]*):(.*)$/.exec(l)).find((m) => m && m[1]!.split(',').includes('pids'));
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find(Boolean);
  const candidates = [v1 ? path.join('/sys/fs/cgroup/pids', v1[2]!) : null, v2 ? path.join('/sys/fs/cgroup', v2[1]!) : null];
  for (const base of candidates) {
    if (!base) continue;
    const probe = path.join(base, `tracegate-probe-${process.pid}`);
    try {
      mkdirSync(probe);
      writeFileSync(path.join(probe, 'pids.max'), '8');
      pidsRoot = base;
    } catch {
      // not ours to make groups in
    } finally {
      try {
        rmdirSync(probe);
      } catch {
        // never made
      }
    }
    if (pidsRoot) break;
  }
  return pidsRoot;
}

/** A fresh pids cgroup bounded at `limits.processes`, or null where none can be made (RLIMIT_NPROC alone then). */
export function openPidsCgroup(limits: CommandLimits): PidsCgroup | null {
  const root = pidsCgroupRoot();
  if (!root) return null;
  const dir = path.join(root, `tracegate-${process.pid}-${++made}`);
  try {
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'pids.max'), String(limits.processes));
  } catch {
    return null;
  }
  const close = (attempt = 0): void => {
    try {
      for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmdirSync(dir);
    } catch {
      // Killed processes leave the group when they are reaped: try again shortly.
      if (attempt < 20) setTimeout(() => close(attempt + 1), 100).unref();
    }
  };
  return { procs: path.join(dir, 'cgroup.procs'), close: () => close() };
}
