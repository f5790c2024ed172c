import { lstatSync, readdirSync } from 'node:fs';
import { cp, lstat, mkdir, realpath, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { Task } from '../schema/task.js';
import { createRunDir } from './workspaces.js';

/**
 * The fresh folder each trial runs in, all under one temporary root per run,
 * `tracegate-run-<pid>-XXXXXX` (a killed run leaves one folder, not thousands, and the pid tells a
 * later run that it is orphaned). The root is made and resolved (realpath) once. Folder creation and removal
 * are journaled metadata writes and cost more than a model request's CPU on a busy disk, so a
 * folder that a finished trial left exactly as it got it (empty, same mode) is handed to the next
 * trial instead of being removed and made again: to the next trial it is the same empty folder.
 */
export class TrialWorkspaces {
  private root: Promise<string> | null = null;
  private seq = 0;
  private readonly free: string[] = [];
  private mode: number | null = null;

  private rootDir(): Promise<string> {
    this.root ??= createRunDir().then((dir) => realpath(dir));
    return this.root;
  }

  private async fresh(): Promise<string> {
    const dir = path.join(await this.rootDir(), String(++this.seq));
    await mkdir(dir, { mode: 0o700 });
    this.mode ??= (await lstat(dir)).mode;
    return dir;
  }

  /** An empty folder, or a copy of the task's workspace (symlinks kept as links); a real path. */
  async create(task: Task): Promise<string> {
    const dir = this.free.pop() ?? (await this.fresh());
    if (task.workspace) await cp(task.workspace, dir, { recursive: true, verbatimSymlinks: true });
    return dir;
  }

  /**
   * Done with a trial's folder. `reusable`: the trial ended on its own (no timeout, crash or
   * interruption), so nothing of it can still be running there.
   */
  async release(dir: string, reusable: boolean): Promise<void> {
    if (reusable) {
      // Two metadata reads of a folder just used, so served from the kernel's cache: done in
      // place they cost less than the thread-pool round trips of their promise forms.
      try {
        const stat = lstatSync(dir);
        if (stat.isDirectory() && stat.mode === this.mode && readdirSync(dir).length === 0) {
          this.free.push(dir);
          return;
        }
      } catch {
        // gone or unreadable: removed below
      }
    }
    try {
      await rmdir(dir);
    } catch {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Removes the root: the free folders and anything a timed-out trial left behind. */
  async dispose(): Promise<void> {
    if (!this.root) return;
    const root = await this.root.catch(() => null);
    this.root = null;
    this.free.length = 0;
    if (root) await rm(root, { recursive: true, force: true }).catch(() => undefined);
  }
}
