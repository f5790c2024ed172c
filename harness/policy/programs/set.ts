import { ask, deny, type Decision } from '../decision.js';
import type { Inspection, ProgramCheck } from './types.js';

/** Options that change only how errors, tracing and globbing behave. */
const SAFE_LETTERS = 'eEuxvfCnhbBHPTt';
const SAFE_NAMES = new Set(['errexit', 'nounset', 'xtrace', 'verbose', 'noglob', 'noclobber', 'pipefail', 'errtrace', 'functrace', 'posix', 'hashall', 'physical', 'notify', 'braceexpand', 'histexpand', 'history', 'noexec', 'emacs', 'vi', 'ignoreeof', 'interactive-comments', 'onecmd']);
/**
 * -k (keyword): `git status GIT_CONFIG_COUNT=0` then puts the assignment in git's environment,
 * though it reads as an argument, and undoes the harness's git configuration. -m (monitor): a
 * background job gets a process group of its own and outlives the kill of the command's group.
 */
const REFUSED: Record<string, string> = {
  k: 'set -k turns later arguments of the form NAME=VALUE into environment variables of the program',
  keyword: 'set -o keyword turns later arguments of the form NAME=VALUE into environment variables of the program',
  m: 'set -m puts background jobs in process groups of their own, which outlive the command',
  monitor: 'set -o monitor puts background jobs in process groups of their own, which outlive the command',
};

/** `set` options, read one by one (`-euo pipefail`): harmless ones pass, the two above refuse, the rest ask. */
export const inspectSet: ProgramCheck = (cmd) => {
  const decisions: Decision[] = [];
  const judge = (option: string, shown: string) => {
    if (Object.hasOwn(REFUSED, option)) decisions.push(deny('shell-option', REFUSED[option]!));
    else if (option.length === 1 ? !SAFE_LETTERS.includes(option) : !SAFE_NAMES.has(option)) decisions.push(ask('shell-option', `set ${shown} changes how the shell runs the rest of the command`));
  };
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) {
      decisions.push(ask('unprovable-argument', `set argument ${args[i]!.text} has no fixed value`));
      continue;
    }
    if (v === '--' || v === '-' || !/^[-+]/.test(v)) break; // the rest are positional parameters
    let expectsName = 0;
    for (const letter of v.slice(1)) {
      if (letter === 'o') expectsName++;
      else judge(letter, `${v[0]}${letter}`);
    }
    for (; expectsName > 0; expectsName--) {
      const name = args[i + 1]?.value;
      if (name === undefined) break; // `set -o` alone lists the options
      if (name === null || /^[-+]/.test(name)) break;
      i++;
      judge(name, `${v[0]}o ${name}`);
    }
  }
  return { decisions } satisfies Inspection;
};
