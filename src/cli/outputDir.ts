import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { tempPathFor, writeFileAtomicSync } from '../files/atomicWrite.js';
import { EXIT } from './exitCodes.js';
import { CliError } from './errors.js';

/** A file where the output folder should be is bad input (checked without creating anything). */
export function refuseFileAsDir(dir: string, flag = '--out'): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new CliError(`${flag} ${dir} is a file, not a folder; give a folder (it is made when missing)`, EXIT.BAD_INPUT);
}

/** Creates the output folder and proves it takes a file, before any trial is paid for. */
export function ensureWritableDir(dir: string, flag = '--out'): void {
  refuseFileAsDir(dir, flag);
  const probe = tempPathFor(path.join(dir, 'probe'));
  try {
    mkdirSync(dir, { recursive: true });
    writeFileAtomicSync(probe, '');
  } catch (error) {
    throw new CliError(`${flag} ${dir}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, EXIT.BAD_INPUT);
  }
  rmSync(probe, { force: true });
}
