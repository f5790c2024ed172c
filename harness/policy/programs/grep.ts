import { allow } from '../decision.js';
import type { Inspection, ProgramCheck } from './types.js';
import { optionWords } from './longOptions.js';
import { recursiveSecretReads } from './recursiveRead.js';

/** Short options that take a value (the rest of the bundle, or the next word). */
const SHORT_WITH_VALUE = 'efmABCdD';

/**
 * `grep -r PATTERN [FOLDER…]` (also `-R`, `--recursive`, `-d recurse`, `--directories=recurse`)
 * reads every file below each folder, the current one when none is named. Under the process sandbox
 * one that holds a secret runs with the secret paths excluded by the sandbox's grep; with a `--`
 * (after which grep would read the excludes as file names) it is refused (recursiveRead).
 */
export const inspectGrep: ProgramCheck = (cmd, ctx) => {
  let recursive = false;
  let patternGiven = false;
  let endOfOptions = false;
  const operands: string[] = [];
  const args = cmd.args;
  const recursesWith = (value: string | null | undefined) => value !== '' && !['read', 'skip'].some((w) => value !== null && value !== undefined && w.startsWith(value));
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) continue;
    if (endOfOptions || !v.startsWith('-') || v === '-') {
      if (v !== '-') operands.push(v);
      continue;
    }
    if (v === '--') {
      endOfOptions = true;
      continue;
    }
    if (v.startsWith('--')) {
      // Long options arrive written in full (longOptions).
      const long = v.split('=')[0]!;
      const value = v.includes('=') ? v.slice(v.indexOf('=') + 1) : optionWords('grep', v) === 2 ? args[++i]?.value : undefined;
      if (long === '--recursive' || long === '--dereference-recursive') recursive = true;
      else if (long === '--directories' && recursesWith(value)) recursive = true;
      else if (long === '--regexp' || long === '--file') patternGiven = true;
      continue;
    }
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]!;
      if (letter === 'r' || letter === 'R') recursive = true;
      if (!SHORT_WITH_VALUE.includes(letter)) continue;
      const value = j < v.length - 1 ? v.slice(j + 1) : args[++i]?.value;
      if (letter === 'e' || letter === 'f') patternGiven = true;
      if (letter === 'd' && recursesWith(value)) recursive = true;
      break;
    }
  }
  if (!recursive) return { decisions: [] };
  const folders = patternGiven ? operands : operands.slice(1);
  const searched = folders.length > 0 ? folders : ['.'];
  // The sandbox's grep (harness/git/bin/grep) skips the secret paths with --exclude and says so: the
  // secret is withheld, not the command refused. It adds nothing to a command line with a `--`.
  if (ctx.sandbox === 'process' && !args.some((a) => a.value === '--')) {
    const secret = searched.map((f) => ctx.secretUnder?.(f) ?? null).find((found) => found !== null);
    if (secret === undefined || secret === null) return { decisions: [] };
    return { decisions: [allow('recursive-secret-withheld', `grep -r reads every file under ${searched.join(' ')}, ${secret} among them: it runs with the secret paths excluded (--exclude), and its output says so`)] } satisfies Inspection;
  }
  return { decisions: recursiveSecretReads('grep -r', searched, ctx) } satisfies Inspection;
};
