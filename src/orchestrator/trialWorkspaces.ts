import { cp, mkdir, mkdtemp, realpath, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Task } from '../schema/task.js';

/**
 * The fresh folder each trial runs in, all under one temporary root per run. The root is made and
 * resolved (realpath) once, so a trial costs one mkdir (plus the copy of its fixture), and a trial
 * that wrote nothing is removed with one rmdir; a killed run leaves one folder, not thousands.
 */
export class TrialWorkspaces {
  private root: Promise<string> | null = null;
  private seq = 0;

  private rootDir(): Promise<string> {
    this.root ??= mkdtemp(path.join(tmpdir(), 'tracegate-run-')).then((dir) => realpath(dir));
    return this.root;
  }

  /** A new empty folder, or a copy of the task's workspace (symlinks kept as links); a real path. */
  async create(task: Task): Promise<string> {
    const dir = path.join(await this.rootDir(), `${++this.seq}-${task.id.slice(0, 40)}`);
    await mkdir(dir);
    if (task.workspace) await cp(task.workspace, dir, { recursive: true, verbatimSymlinks: true });
    return dir;
  }

  async remove(dir: string): Promise<void> {
    try {
      await rmdir(dir);
    } catch {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Removes the root and anything a timed-out trial left behind. */
  async dispose(): Promise<void> {
    if (!this.root) return;
    const root = await this.root.catch(() => null);
    this.root = null;
    if (root) await rm(root, { recursive: true, force: true }).catch(() => undefined);
  }
}
