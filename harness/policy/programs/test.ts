import { deny, type Decision } from '../decision.js';
import type { Inspection, ProgramCheck } from './types.js';

/**
 * `test -v 'a[$(cmd)]'` runs cmd: bash evaluates the subscript of the variable name `-v` and `-R`
 * test. (`[ … ]` and `[[ … ]]` are read by the shell syntax, which sees their operators.)
 */
export const inspectTest: ProgramCheck = (cmd) => {
  const decisions: Decision[] = [];
  cmd.args.forEach((arg, i) => {
    const next = cmd.args[i + 1]?.value;
    if ((arg.value === '-v' || arg.value === '-R') && next?.includes('[')) {
      decisions.push(deny('unprovable-arithmetic', `test ${arg.value} ${cmd.args[i + 1]!.text} evaluates a subscript, which can run commands`));
    }
  });
  return { decisions } satisfies Inspection;
};
