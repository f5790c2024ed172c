/** Why a file could not be imported; the CLI turns it into exit 2 with the file and the reason. */
export const IMPORT_ERROR_CODES = ['BAD_JSON', 'UNKNOWN_FORMAT', 'BAD_FORMAT', 'TOO_LARGE', 'BAD_ARCHIVE', 'EMPTY'] as const;
export type ImportErrorCode = (typeof IMPORT_ERROR_CODES)[number];

export class ImportError extends Error {
  constructor(
    readonly code: ImportErrorCode,
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'ImportError';
  }
}
