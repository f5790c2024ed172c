import type { Decision } from '../decision.js';
import { deny } from '../decision.js';
import type { Inspection, ProgramCheck } from './types.js';
import { recursiveSecretReads } from './recursiveRead.js';

/**
 * `mv FOLDER NEW` and `cp -r FOLDER NEW` carry the secrets below FOLDER to names no secret glob
 * matches (`.ssh/**` does not match `keys/id_rsa`). A folder holding a secret may not be moved
 * (under bubblewrap too: the next command's masks are found by name) nor, under the process
 * sandbox, copied recursively. The destination is not a source and is not checked this way.
 */
export const inspectCopy: ProgramCheck = (cmd, ctx) => {
  const program = cmd.program?.value === 'mv' ? 'mv' : 'cp';
  let recursive = program === 'mv';
  let target: string | undefined;
  let endOfOptions = false;
  const operands: string[] = [];
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) continue;
    if (endOfOptions || !v.startsWith('-') || v === '-') {
      operands.push(v);
      continue;
    }
    if (v === '--') endOfOptions = true;
    else if (v.startsWith('--')) {
      // Long options arrive written in full (longOptions).
      const long = v.split('=')[0]!;
      if (long === '--recursive' || long === '--archive') recursive = true;
      if (long === '--target-directory') target = v.includes('=') ? v.slice(v.indexOf('=') + 1) : (args[++i]?.value ?? undefined);
    } else {
      if (/^-[A-Za-z]*[rRa]/.test(v.replace(/[tS].*$/, ''))) recursive = true;
      const t = v.search(/[tS]/);
      if (t > 0) {
        const value = t < v.length - 1 ? v.slice(t + 1) : (args[++i]?.value ?? undefined);
        if (v[t] === 't') target = value;
      }
    }
  }
  if (!recursive) return { decisions: [] };
  const sources = target !== undefined ? operands : operands.slice(0, -1);
  // A link out of the workspace carried to a new name is a path no later argument shows for what it is
  // (`cp -r sub sx && cat sx/link`): the copy or move itself is refused.
  const carried: Decision[] = [];
  for (const source of sources) {
    const link = ctx.outwardLinksUnder?.(source)[0];
    if (link) carried.push(deny('copies-outward-link', `${program} ${source} carries ${link}, a symlink out of the workspace, to a new name`, 'PATH_OUTSIDE_WORKSPACE'));
  }
  if (carried.length > 0) return { decisions: carried } satisfies Inspection;
  if (program === 'cp') return { decisions: recursiveSecretReads('cp -r', sources, ctx) } satisfies Inspection;
  const decisions: Decision[] = [];
  for (const source of sources) {
    const secret = ctx.secretUnder?.(source) ?? null;
    if (secret !== null) decisions.push(deny('secret-path', `mv ${source} moves ${secret}, a secret, to a name no secret path pattern matches`, 'PERMISSION_DENIED'));
  }
  return { decisions } satisfies Inspection;
};
