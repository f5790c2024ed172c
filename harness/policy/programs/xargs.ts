import { ask, deny, strictest, type Decision } from '../decision.js';
import { optionWords } from './longOptions.js';
import type { Inspection, ProgramCheck } from './types.js';

/**
 * xargs runs a command with arguments read from its input. The command is judged like any other;
 * the arguments it adds cannot be, so xargs asks unless its command only prints text.
 */
export const inspectXargs: ProgramCheck = (cmd, ctx) => {
  const args = cmd.args;
  const pathArgs = [];
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return { decisions: [ask('unprovable-argument', `xargs argument ${args[i]!.text} has no fixed value`)], pathArgs: [] };
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-')) break;
    // Long options arrive written in full (longOptions); `-0a FILE` bundles.
    const words = optionWords('xargs', v);
    const attached = v.startsWith('--') ? (v.includes('=') ? v.slice(v.indexOf('=') + 1) : undefined) : /^-[0prtx]*a(.+)$/.exec(v)?.[1];
    if (v.split('=')[0] === '--arg-file' || /^-[0prtx]*a/.test(v)) {
      const file = attached ?? args[i + 1];
      if (typeof file === 'string') pathArgs.push({ value: file, text: file, glob: false });
      else if (file) pathArgs.push(file);
    }
    i += words - 1;
  }
  const program = args[i] ?? { value: 'echo', text: 'echo', glob: false };
  const inner = ctx.checkCommand({ program, args: args.slice(i + 1), assignments: [], redirects: [] });
  const decisions: Decision[] = [inner];
  if (inner.decision === 'deny') decisions.push(deny(inner.rule, `xargs runs ${program.text}: ${inner.reason}`, inner.errorType ?? 'COMMAND_BLOCKED'));
  const textOnly = program.value !== null && ctx.policy.shell.text_args.includes(program.value);
  if (!textOnly) decisions.push(ask('xargs-input', `xargs gives ${program.text} arguments read from its input, which cannot be checked`));
  return { decisions: [strictest(decisions)], pathArgs } satisfies Inspection;
};
