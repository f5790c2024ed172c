import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { resolveInWorkspace } from '../sandbox/workspacePaths.js';
import type { SimpleCommand } from './shellSyntax.js';

/** Programs that change the shell's current folder. */
const CHANGES_FOLDER = new Set(['cd', 'pushd', 'popd']);
/** Words that run the builtin after them in this shell, so a `cd` behind them moves it too, with their own options. */
const RUNS_IN_THIS_SHELL: Record<string, RegExp> = { command: /^-p+$/, time: /^-p+$/ };

/**
 * The folder change a command makes, as a plain `cd`/`pushd`/`popd`: `command cd lib`,
 * `command -p -- cd lib` and `time cd lib` move the shell as `cd lib` does. Null when it moves
 * nothing (`command -v cd` only prints).
 */
export function folderChange(cmd: SimpleCommand): SimpleCommand | null {
  let current = cmd;
  for (let depth = 0; depth < 8; depth++) {
    const name = current.program?.value ?? '';
    if (CHANGES_FOLDER.has(name)) return current;
    const options = RUNS_IN_THIS_SHELL[name];
    if (!options) return null;
    let i = 0;
    while (i < current.args.length && options.test(current.args[i]!.value ?? '')) i++;
    if (current.args[i]?.value === '--') i++;
    const program = current.args[i];
    if (!program) return null;
    current = { ...current, program, args: current.args.slice(i + 1) };
  }
  return null;
}

/**
 * The folders each command of a command line runs in, where the shell's order makes them certain:
 * top-level statements run one after another in this shell, and in `a && b && c` each link runs
 * only after the one before succeeded, so `cd src && ls && cd .. && pwd` runs `ls` in src and `pwd`
 * in the workspace. A `cd` into a folder that exists inside the workspace (not through a link) moves
 * the commands after it. After a chain, the folder is any where it may have stopped. A
 * command missing from the map (after a `cd` inside a condition, loop, group or pipeline, or one to a
 * folder that is not there) is read from every folder the line may change into, as before.
 */
export function commandFolders(root: string, commands: SimpleCommand[]): Map<SimpleCommand, string[]> {
  const folders = new Map<SimpleCommand, string[]>();
  let current: string[] | null = [root];
  const statements = [...new Set(commands.flatMap((c) => (c.step ? [c.step.statement] : [])))].sort((a, b) => a - b);
  for (const statement of statements) {
    if (current === null) break;
    const members = commands.filter((c) => c.step?.statement === statement);
    if (!members[0]!.step!.chained) {
      if (members.some((c) => folderChange(c) !== null)) break;
      for (const cmd of members) folders.set(cmd, current);
      continue;
    }
    // Where the chain may stop: before any link that may fail (a `cd` into an existing folder cannot), or at its end.
    let here: string[] = current;
    const reached: string[] = [];
    for (const cmd of members) {
      folders.set(cmd, here);
      const change = folderChange(cmd);
      if (change === null) {
        reached.push(...here);
        continue;
      }
      const next = cdMove(root, here, change);
      if (next === null) {
        here = [];
        break;
      }
      here = next;
    }
    current = here.length === 0 ? null : [...new Set([...reached, ...here])];
  }
  return folders;
}

/** Where `cd DIR` goes from each folder, or null when that is not certain (no fixed folder, a link, not a folder, outside). */
function cdMove(root: string, from: string[], cmd: SimpleCommand): string[] | null {
  if (cmd.program?.value !== 'cd') return null;
  const operands = cmd.args.filter((a) => a.value === null || !/^-[LPe@]*$/.test(a.value) || a.value === '-');
  const target = operands[0];
  if (operands.length !== 1 || !target || target.value === null || target.glob || target.value === '-' || target.value === '') return null;
  const to: string[] = [];
  for (const base of from) {
    const logical = path.resolve(base, target.value);
    if (!resolveInWorkspace(root, logical).inside || !statSync(logical, { throwIfNoEntry: false })?.isDirectory()) return null;
    // bash keeps the logical path and the kernel the physical one: no link may stand between them.
    if (realpathSync(logical) !== path.join(realpathSync(root), path.relative(root, logical))) return null;
    to.push(logical);
  }
  return to;
}
