import { ModelError } from '../../harness/index.js';
import { AdapterConfigError } from '../adapters/harnessAdapter.js';
import { JsonFileError } from '../schema/jsonFile.js';
import { SuiteError } from '../suite/loadSuite.js';
import { ImportError } from '../traceio/importError.js';
import { CliError, EXIT, type ExitCode } from './exitCodes.js';

/** Maps a thrown error to the exit code and message the user sees. Bad input is 2, never a crash. */
export function toExit(error: unknown): { code: ExitCode; message: string } {
  if (error instanceof CliError) return { code: error.exitCode, message: error.message };
  if (error instanceof SuiteError || error instanceof JsonFileError || error instanceof AdapterConfigError || error instanceof ImportError) {
    return { code: EXIT.BAD_INPUT, message: error.message };
  }
  if (error instanceof ModelError && error.code === 'CASSETTE_INVALID') return { code: EXIT.BAD_INPUT, message: error.message };
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: EXIT.COULD_NOT_RUN, message: `tracegate could not run: ${message}` };
}
