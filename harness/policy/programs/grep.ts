import type { Inspection, ProgramCheck } from './types.js';
import { isLongPrefix, recursiveSecretReads } from './recursiveRead.js';

/** Short options that take a value (the rest of the bundle, or the next word). */
const SHORT_WITH_VALUE = 'efmABCdD';
/** Long options whose value may be the next word. */
const LONG_WITH_VALUE = ['--regexp', '--file', '--max-count', '--label', '--after-context', '--before-context', '--context', '--binary-files', '--devices', '--directories', '--exclude', '--include', '--exclude-from', '--exclude-dir', '--group-separator'];

/**
 * `grep -r PATTERN [FOLDER…]` (also `-R`, `--recursive`, `-d recurse`, `--directories=recurse`)
 * reads every file below each folder, the current one when none is named: one that holds a secret
 * is refused under the process sandbox (recursiveRead).
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
      const long = LONG_WITH_VALUE.find((l) => isLongPrefix(v, l, 4));
      const value = v.includes('=') ? v.slice(v.indexOf('=') + 1) : long ? args[++i]?.value : undefined;
      if (isLongPrefix(v, '--recursive', 5) || isLongPrefix(v, '--dereference-recursive', 5)) recursive = true;
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
  return { decisions: recursiveSecretReads('grep -r', folders.length > 0 ? folders : ['.'], ctx) } satisfies Inspection;
};
