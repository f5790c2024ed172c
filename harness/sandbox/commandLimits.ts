import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandLimits } from '../../src/schema/policy.js';

/** Largest file a command may write, in KiB: a runaway `seq … > file` cannot fill the disk. */
export const MAX_FILE_KIB = 100 * 1024;

/**
 * The `ulimit` line the sandbox's outer shell runs before the command, soft and hard (the command
 * cannot raise them): file size; processes (RLIMIT_NPROC, which counts every process of the user
 * and which root ignores); each process's writable memory (RLIMIT_DATA: what it allocates, not
 * the address space it only reserves, as WebAssembly engines and JVMs do); and its address space
 * (RLIMIT_AS), a backstop for what RLIMIT_DATA does not count (shared anonymous maps).
 */
export function ulimitLine(limits: CommandLimits): string {
  return `ulimit -f ${MAX_FILE_KIB} -u ${limits.processes} -d ${limits.memory_mib * 1024} -v ${limits.address_space_mib * 1024}`;
}

/** The cgroups of one command's own: its processes together are bounded, whoever runs them. */
export interface CommandCgroup {
  /** The files a process writes its pid into to join (before it starts anything). */
  procs: string[];
  /** Kills what is left in the groups and removes them. */
  close(): Promise<void>;
}

/** A cgroup controller tracegate bounds, the files that set its limit (v1 and v2) and their values. */
interface Controller {
  name: 'pids' | 'memory';
  /** [file, value] in the order they are written; an absent optional file (swap accounting off) is skipped. */
  settings(limits: CommandLimits, v2: boolean): Array<{ file: string; value: string; optional?: true }>;
}

const CONTROLLERS: readonly Controller[] = [
  { name: 'pids', settings: (l) => [{ file: 'pids.max', value: String(l.processes) }] },
  {
    name: 'memory',
    settings: (l, v2) => {
      const bytes = String(l.memory_mib * 1024 * 1024);
      // With swap, memory over the limit would be swapped out instead of refused: swap counts too.
      return v2
        ? [{ file: 'memory.max', value: bytes }, { file: 'memory.swap.max', value: '0', optional: true }]
        : [{ file: 'memory.limit_in_bytes', value: bytes }, { file: 'memory.memsw.limit_in_bytes', value: bytes, optional: true }];
    },
  },
];

interface Root {
  dir: string;
  v2: boolean;
}
const roots = new Map<Controller['name'], Root | null>();
let made = 0;

/** Writes a control file that must already exist (a cgroup's own; never a plain file in a tmpfs). */
function writeControl(dir: string, file: string, value: string): void {
  writeFileSync(path.join(dir, file), value, { flag: 'r+' });
}

function applySettings(dir: string, controller: Controller, limits: CommandLimits, v2: boolean): void {
  for (const { file, value, optional } of controller.settings(limits, v2)) {
    try {
      writeControl(dir, file, value);
    } catch (error) {
      if (!optional) throw error;
    }
  }
}

/** The cgroup (v1 or v2) of `controller` this process is in, when tracegate may make groups under it, else null. */
function cgroupRoot(controller: Controller): Root | null {
  if (roots.has(controller.name)) return roots.get(controller.name)!;
  roots.set(controller.name, null);
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return null;
  }
  const v1 = lines.map((l) => /^\d+:([^:]*):(.*)$/.exec(l)).find((m) => m && m[1]!.split(',').includes(controller.name));
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find(Boolean);
  const candidates: Root[] = [
    ...(v1 ? [{ dir: path.join('/sys/fs/cgroup', v1[1]!, v1[2]!), v2: false }] : []),
    ...(v2 ? [{ dir: path.join('/sys/fs/cgroup', v2[1]!), v2: true }, { dir: path.join('/sys/fs/cgroup/unified', v2[1]!), v2: true }] : []),
  ];
  for (const root of candidates) {
    const probe = path.join(root.dir, `tracegate-probe-${process.pid}`);
    try {
      mkdirSync(probe);
      // The smallest limits the policy allows: the probe only shows the limit can be set.
      applySettings(probe, controller, { processes: 8, memory_mib: 64, address_space_mib: 64 }, root.v2);
      roots.set(controller.name, root);
    } catch {
      // not ours to make groups in, or the controller is not enabled there
    } finally {
      try {
        rmdirSync(probe);
      } catch {
        // never made
      }
    }
    if (roots.get(controller.name)) break;
  }
  return roots.get(controller.name)!;
}

/** The controllers whose cgroups tracegate may make on this machine (what bounds a command's processes together). */
export function cgroupControllers(): Array<Controller['name']> {
  return CONTROLLERS.filter((c) => cgroupRoot(c) !== null).map((c) => c.name);
}

/**
 * Kills what is in a group and removes it. Killed processes leave the group only when reaped, so
 * it tries again shortly, for up to 2 s: resolved once the group is gone (or left to the system).
 */
async function removeGroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Fresh groups bounding the command's processes together at `limits.processes` (pids) and
 * `limits.memory_mib` (memory, swap included; over it the kernel's OOM killer ends a process of the
 * group, never one outside it), for each controller where tracegate may make one; null where none.
 */
export function openCommandCgroup(limits: CommandLimits): CommandCgroup | null {
  const dirs: string[] = [];
  const seq = ++made;
  for (const controller of CONTROLLERS) {
    const root = cgroupRoot(controller);
    if (!root) continue;
    // Under cgroup v2 one group holds every controller.
    const dir = path.join(root.dir, `tracegate-${process.pid}-${seq}`);
    try {
      if (!dirs.includes(dir)) mkdirSync(dir);
      applySettings(dir, controller, limits, root.v2);
      if (!dirs.includes(dir)) dirs.push(dir);
    } catch {
      if (!dirs.includes(dir)) void removeGroup(dir);
    }
  }
  if (dirs.length === 0) return null;
  return { procs: dirs.map((d) => path.join(d, 'cgroup.procs')), close: async () => void (await Promise.all(dirs.map(removeGroup))) };
}
