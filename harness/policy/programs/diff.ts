import { deny, type Decision } from '../decision.js';
import { recursiveSecretReads } from './recursiveRead.js';
import type { Inspection, ProgramCheck } from './types.js';

/**
 * GNU diff follows symlinks, also those it meets while recursing (`diff -r a b` prints the content
 * of `a/link` when it points at /etc/hostname). Recursion without `--no-dereference` over a folder
 * that holds a link out of the workspace is refused; the named files get the usual path check.
 */
export const inspectDiff: ProgramCheck = (cmd, ctx) => {
  const values = cmd.args.map((a) => a.value ?? '');
  const options = values.filter((v) => v.startsWith('-') && v !== '-');
  // Long options arrive written in full (longOptions).
  const recursive = options.some((o) => o === '--recursive' || /^-[A-Za-z]*r/.test(o));
  const decisions: Decision[] = [];
  if (recursive && !options.includes('--no-dereference')) {
    for (const operand of values.filter((v) => v !== '' && !v.startsWith('-'))) {
      const link = ctx.outwardLinksUnder?.(operand)[0];
      if (link) decisions.push(deny('follows-symlinks', `diff -r follows ${link}, a symlink out of the workspace (add --no-dereference)`, 'PATH_OUTSIDE_WORKSPACE'));
    }
  }
  if (recursive) decisions.push(...recursiveSecretReads('diff -r', values.filter((v) => v !== '' && !v.startsWith('-')), ctx));
  return { decisions } satisfies Inspection;
};
