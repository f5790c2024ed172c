import type { Inspection, ProgramCheck } from './types.js';
import { optionWords } from './longOptions.js';
import { recursiveSecretReads } from './recursiveRead.js';

/** Short options that take a value (the rest of the bundle, or the next word). */
const SHORT_WITH_VALUE = 'efmABCdD';

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
  return { decisions: recursiveSecretReads('grep -r', folders.length > 0 ? folders : ['.'], ctx) } satisfies Inspection;
};
