import { BAD_INPUT_CODES, TracegateError, type RunErrorCode } from '../schema/runError.js';
import { EXIT, type ExitCode } from './exitCodes.js';

/** The exit code a thrown error's code ends a command with. */
export function exitCodeFor(code: RunErrorCode): ExitCode {
  return BAD_INPUT_CODES.has(code) ? EXIT.BAD_INPUT : EXIT.COULD_NOT_RUN;
}

/** An error that ends a command with a given exit code and a message for the user. */
export class CliError extends TracegateError {
  readonly exitCode: ExitCode;
  constructor(message: string, exitCode: typeof EXIT.BAD_INPUT | typeof EXIT.COULD_NOT_RUN) {
    super(exitCode === EXIT.BAD_INPUT ? 'BAD_INPUT' : 'COULD_NOT_RUN', message);
    this.exitCode = exitCode;
  }
}

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
