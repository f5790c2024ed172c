import { ask, deny, type Decision } from '../decision.js';
import type { ShellWord } from '../shellSyntax.js';
import type { Inspection, ProgramCheck } from './types.js';

const RUNS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
/** Predicates whose next argument is a pattern or a value, never a file. */
const PATTERN_VALUE = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname', '-type', '-xtype', '-perm', '-user', '-group', '-size', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-maxdepth', '-mindepth', '-printf', '-uid', '-gid', '-links', '-inum', '-regextype', '-fstype', '-used', '-context']);

/**
 * find walks the workspace (it never follows links: -L, -H, -follow are refused by a rule) and
 * may run a command on what it finds. The command after -exec/-execdir/-ok/-okdir is judged like
 * any other, with `{}` standing for a workspace path; under the process sandbox it asks, since the
 * files it gets (a secret among them) are known only at run time — bubblewrap masks secrets.
 * -delete and the -fprint family are refused by a rule.
 */
export const inspectFind: ProgramCheck = (cmd, ctx) => {
  const decisions: Decision[] = [];
  const pathArgs: ShellWord[] = [];
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const v = arg.value;
    if (v !== null && RUNS.has(v)) {
      const end = args.findIndex((a, j) => j > i && (a.value === ';' || a.value === '+'));
      if (end < 0) return { decisions: [ask('find-exec', `find ${v} without its terminating ; or +`)], pathArgs };
      const inner = args.slice(i + 1, end).map((a) => (a.value === '{}' ? { value: '.', text: '{}', glob: false } : a));
      const [program, ...rest] = inner;
      if (!program) return { decisions: [deny('find-exec', `find ${v} without a command`)], pathArgs };
      const judged = ctx.checkCommand({ program, args: rest, assignments: [], redirects: [] });
      decisions.push(judged.decision === 'allow' ? judged : { ...judged, reason: `find ${v} runs ${program.text}: ${judged.reason}` });
      if (ctx.sandbox === 'process') decisions.push(ask('find-exec', `find ${v} runs ${program.text} on files known only at run time`));
      i = end;
      continue;
    }
    if (v !== null && PATTERN_VALUE.has(v)) {
      i++;
      continue;
    }
    pathArgs.push(arg);
  }
  return { decisions, pathArgs } satisfies Inspection;
};
