import { TracegateError } from '../schema/runError.js';
import { CliError, EXIT, exitCodeFor, type ExitCode } from './exitCodes.js';

/** Maps a thrown error to the exit code and message the user sees, by its stable `code`. Bad input is 2, never a crash. */
export function toExit(error: unknown): { code: ExitCode; message: string } {
  // A CliError says which exit code it ends the command with.
  if (error instanceof CliError) return { code: error.exitCode, message: error.message };
  if (error instanceof TracegateError) {
    const code = exitCodeFor(error.code);
    return code === EXIT.COULD_NOT_RUN && error.code !== 'COULD_NOT_RUN' ? { code, message: `tracegate could not run: ${error.message}` } : { code, message: error.message };
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: EXIT.COULD_NOT_RUN, message: `tracegate could not run: ${message}` };
}
