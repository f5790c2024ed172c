import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { tempPathFor, writeFileAtomicSync } from '../schema/atomicWrite.js';
import { CliError, EXIT } from './exitCodes.js';

/** Creates the output folder and proves it takes a file, before any trial is paid for. */
export function ensureWritableDir(dir: string, flag = '--out'): void {
  const probe = tempPathFor(path.join(dir, 'probe'));
  try {
    mkdirSync(dir, { recursive: true });
    writeFileAtomicSync(probe, '');
  } catch (error) {
    throw new CliError(`${flag} ${dir}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, EXIT.BAD_INPUT);
  }
  rmSync(probe, { force: true });
}
