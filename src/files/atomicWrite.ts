import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Every file tracegate writes goes through here: written whole to a temporary file in the same
 * folder, then renamed over the target. A reader (or a run killed half-way) sees the old file or
 * the new one, never an empty or torn one. Part of the stored-file contract, so the harness
 * (cassettes) and the platform (traces, reports, baselines) share it.
 */

// Unique within the process (a counter, not randomness: a run writes one file per trial); the
// random start keeps two writers that share a pid (containers) apart.
let tempSeq = randomBytes(4).readUInt32BE(0);

/** `.report.json.<pid>.<8 hex>.tmp`: hidden, in the target's folder (a rename never crosses a disk). */
export function tempPathFor(file: string): string {
  tempSeq = (tempSeq + 1) >>> 0;
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${tempSeq.toString(16).padStart(8, '0')}.tmp`);
}

/** True for a temporary file left by a writer that was killed before its rename. */
export const TEMP_FILE = /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/;

export interface AtomicWriteOptions {
  /** fsync before the rename, so the content also survives a power cut (reports and baselines). */
  durable?: boolean;
}

export function writeFileAtomicSync(file: string, data: string | Uint8Array | Iterable<string>, options: AtomicWriteOptions = {}): void {
  const temp = tempPathFor(file);
  try {
    const fd = openSync(temp, 'w');
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
      else for (const chunk of data) writeSync(fd, chunk);
      if (options.durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Writes `chunks` one after another (a large report need not be one string), then renames. */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array | Iterable<string> | AsyncIterable<string>,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temp = tempPathFor(file);
  try {
    const handle = await open(temp, 'w');
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
      else {
        let pending = '';
        for await (const chunk of data) {
          pending += chunk;
          if (pending.length >= 1 << 20) {
            await handle.write(pending);
            pending = '';
          }
        }
        if (pending) await handle.write(pending);
      }
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Removes temporary files and folders a killed writer left in `dir` (only those whose writer pid is gone). */
export function removeOrphanedTempFiles(dir: string, isAlive: (pid: number) => boolean): number {
  let removed = 0;
  for (const name of readdirSafe(dir)) {
    if (!TEMP_FILE.test(name)) continue;
    const pid = Number(/\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name)![1]);
    if (pid === process.pid || isAlive(pid)) continue;
    rmSync(path.join(dir, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Copies a file under the same guarantee as a write: the target is the old file or the whole new one. */
export function copyFileAtomicSync(from: string, to: string): void {
  const temp = tempPathFor(to);
  try {
    copyFileSync(from, temp);
    renameSync(temp, to);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * A folder written whole: its files go, plainly written, into a hidden temporary folder beside
 * `target`, which takes the target's place on `commit` (the old folder stays until then). One
 * rename for the folder instead of a temporary file and a rename for each of its files, which were
 * a third of writing 10,000 traces. A killed writer leaves only the temporary folder, which
 * removeOrphanedTempFiles takes away.
 */
export class StagedFolder {
  private readonly staging: string;

  constructor(private readonly target: string) {
    this.staging = tempPathFor(target);
    mkdirSync(this.staging, { recursive: true });
  }

  write(name: string, text: string): void {
    writeFileSync(path.join(this.staging, name), text);
  }

  commit(): void {
    rmSync(this.target, { recursive: true, force: true });
    renameSync(this.staging, this.target);
  }

  discard(): void {
    rmSync(this.staging, { recursive: true, force: true });
  }
}
