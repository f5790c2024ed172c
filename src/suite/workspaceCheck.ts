import { existsSync, opendirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Most entries a task's workspace may hold: every trial gets a copy of it, and bubblewrap's secret
 * scan reads no more (a workspace over it could not run there anyway).
 */
export const MAX_WORKSPACE_ENTRIES = 100_000;

/**
 * What is wrong with a task's workspace folder, or null: it must exist, lie inside the suite's own
 * folder (never `/` or `..`: `run` copies it for every trial), and not be too large to copy.
 * Tasks share workspaces, so each folder is checked once per `checked` map.
 */
export function workspaceProblem(workspace: string, suiteDir: string, checked: Map<string, string | null>): string | null {
  let problem = checked.get(workspace);
  if (problem === undefined) {
    problem = check(workspace, suiteDir);
    checked.set(workspace, problem);
  }
  return problem;
}

function check(workspace: string, suiteDir: string): string | null {
  const shown = path.relative(process.cwd(), workspace) || '.';
  if (!existsSync(workspace) || !statSync(workspace).isDirectory()) return `folder ${shown} does not exist`;
  const real = realpathSync(workspace);
  const rel = path.relative(realpathSync(suiteDir), real);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    return `${real} is outside the suite's folder ${suiteDir}; every trial copies its workspace, so keep workspaces in the suite's folder`;
  }
  if (countEntries(real, MAX_WORKSPACE_ENTRIES) > MAX_WORKSPACE_ENTRIES) {
    return `folder ${shown} has more than ${MAX_WORKSPACE_ENTRIES} entries, too many to copy for every trial`;
  }
  return null;
}

/** Entries under `dir` (links not followed), counting stops once past `max`. */
function countEntries(dir: string, max: number): number {
  let count = 0;
  const pending = [dir];
  while (pending.length > 0 && count <= max) {
    const current = pending.pop()!;
    const handle = opendirSync(current);
    try {
      for (let entry = handle.readSync(); entry && count <= max; entry = handle.readSync()) {
        count++;
        if (entry.isDirectory()) pending.push(path.join(current, entry.name));
      }
    } finally {
      handle.closeSync();
    }
  }
  return count;
}
