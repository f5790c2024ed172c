import { inspectAwk } from './awk.js';
import { inspectCopy } from './copy.js';
import { inspectDiff } from './diff.js';
import { inspectFind } from './find.js';
import { inspectGit } from './git.js';
import { inspectGrep } from './grep.js';
import { inspectJq } from './jq.js';
import { inspectNode, inspectNpm, inspectPython } from './interpreters.js';
import { inspectSed } from './sed.js';
import { inspectSet } from './set.js';
import { inspectTest } from './test.js';
import type { ProgramCheck } from './types.js';
import { inspectXargs } from './xargs.js';

/** Programs whose arguments the policy reads the way the program will (by the program's name). */
export const PROGRAM_CHECKS = {
  sed: inspectSed,
  gsed: inspectSed,
  awk: inspectAwk,
  gawk: inspectAwk,
  mawk: inspectAwk,
  nawk: inspectAwk,
  xargs: inspectXargs,
  set: inspectSet,
  test: inspectTest,
  grep: inspectGrep,
  egrep: inspectGrep,
  fgrep: inspectGrep,
  cp: inspectCopy,
  mv: inspectCopy,
  find: inspectFind,
  diff: inspectDiff,
  git: inspectGit,
  jq: inspectJq,
  python: inspectPython,
  python3: inspectPython,
  node: inspectNode,
  nodejs: inspectNode,
  npm: inspectNpm,
} as const satisfies Record<string, ProgramCheck>;

export function programCheck(name: string): ProgramCheck | undefined {
  return Object.hasOwn(PROGRAM_CHECKS, name) ? PROGRAM_CHECKS[name as keyof typeof PROGRAM_CHECKS] : undefined;
}
