import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ask, type Decision } from '../decision.js';
import type { InspectContext } from './types.js';

const MAX_PROGRAM_BYTES = 256 * 1024;

/**
 * The text of a program or script file the command names, read so it can be judged like inline
 * code; the path itself must pass the path check first. A missing file asks (only the command
 * itself could create it before it runs); a file too big to read asks.
 */
export function readWorkspaceText(file: string, ctx: InspectContext): string | Decision {
  const checked = ctx.checkPath(file);
  if (checked.decision !== 'allow') return checked;
  // /dev/stdin here is the policy's own standard input, not what the command will feed the program.
  if (checked.rule === 'device') return ask('program-file', `${file} is a device: the program it carries cannot be read before it runs`);
  if (ctx.namedElsewhere?.(file)) return ask('program-file-written', `the command also names ${file}, so it may write the program before running it; what is on disk now proves nothing`);
  // The interpreter opens the name from the folder it runs in (`cd src && python3 app.py` runs
  // src/app.py): read it from every folder the command may be in, never from the root alone.
  const texts = new Set<string>();
  for (const base of ctx.folders.length > 0 ? ctx.folders : [ctx.root]) {
    const absolute = path.resolve(base, file);
    const info = statSync(absolute, { throwIfNoEntry: false });
    // Not there yet: only this command could create it (`cp evil.py src/ && python3 src/evil.py`).
    if (!info) return ask('program-file', `${file} does not exist yet: the command would have to create it, so it cannot be read first`);
    if (!info.isFile()) return ask('program-file', `${file} is not a regular file`);
    if (info.size > MAX_PROGRAM_BYTES) return ask('program-file', `${file} is larger than ${MAX_PROGRAM_BYTES} bytes and was not read`);
    texts.add(readFileSync(absolute, 'utf8'));
  }
  // Several folders, several files: each may be the one that runs, so all are judged together.
  return [...texts].join('\n');
}
