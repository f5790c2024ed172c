import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Temporary workspaces. A run keeps every trial's workspace inside one folder named after its pid
 * (`tracegate-run-<pid>-XXXXXX` in the temp dir), so a run killed with -9 leaves one folder that
 * the next run can recognise as orphaned (its pid is gone) and remove.
 */
const RUN_DIR = /^tracegate-run-(\d+)-/;

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes run folders whose owning process is dead; returns the folders removed. */
export async function cleanOrphanedWorkspaces(root = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const match = RUN_DIR.exec(name);
    if (!match || Number(match[1]) === process.pid || isAlive(Number(match[1]))) continue;
    const dir = path.join(root, name);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    removed.push(dir);
  }
  return removed;
}

export function createRunDir(root = tmpdir()): Promise<string> {
  return mkdtemp(path.join(root, `tracegate-run-${process.pid}-`));
}

