import { TracegateError } from '../schema/runError.js';

/** Why a file could not be imported; the CLI turns it into exit 2 with the file and the reason. */
export const IMPORT_ERROR_CODES = ['BAD_JSON', 'UNKNOWN_FORMAT', 'BAD_FORMAT', 'TOO_LARGE', 'BAD_ARCHIVE', 'EMPTY', 'NOT_A_FILE'] as const;
export type ImportErrorCode = (typeof IMPORT_ERROR_CODES)[number];

export class ImportError extends TracegateError {
  constructor(
    /** What kind of problem the file has. */
    readonly problem: ImportErrorCode,
    readonly file: string,
    readonly reason: string,
  ) {
    super('IMPORT_INVALID', `${file}: ${reason}`);
  }
}
