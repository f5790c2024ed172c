import { ERROR_TYPES, type ErrorType } from '../schema/trace.js';

const KNOWN = new Set<string>(ERROR_TYPES);

/** Inspect AI's ToolCallError types onto tracegate's error types. */
export const INSPECT_ERROR_TYPES: Record<string, ErrorType> = {
  parsing: 'INVALID_ARGUMENTS',
  timeout: 'COMMAND_TIMEOUT',
  unicode_decode: 'COMMAND_FAILED',
  permission: 'PERMISSION_DENIED',
  file_not_found: 'FILE_NOT_FOUND',
  is_a_directory: 'INVALID_ARGUMENTS',
  limit: 'LIMIT_EXCEEDED',
  approval: 'APPROVAL_DENIED',
  // The operator stopped the call, or the sandbox was gone: it did not complete, for no reason of its own.
  cancelled: 'COMMAND_FAILED',
  sandbox_unavailable: 'COMMAND_FAILED',
  unknown: 'COMMAND_FAILED',
  output_limit: 'OUTPUT_TRUNCATED',
};

const PATTERNS: Array<[RegExp, ErrorType]> = [
  [/time(d)?[ _-]?out|deadline/i, 'COMMAND_TIMEOUT'],
  [/not[ _-]?found|ENOENT|no such file/i, 'FILE_NOT_FOUND'],
  [/approval/i, 'APPROVAL_DENIED'],
  [/permission|EACCES|EPERM|forbidden|denied/i, 'PERMISSION_DENIED'],
  [/unknown[ _-]?tool|no such tool/i, 'UNKNOWN_TOOL'],
  [/invalid[ _-]?arg|validation|parsing|parse error/i, 'INVALID_ARGUMENTS'],
  [/limit/i, 'LIMIT_EXCEEDED'],
];

/** An error description from another tool (error.type, an exception class) as a tracegate type. */
export function errorTypeFrom(...hints: Array<string | null | undefined>): ErrorType {
  for (const hint of hints) if (hint && KNOWN.has(hint)) return hint as ErrorType;
  for (const hint of hints) {
    if (!hint) continue;
    if (INSPECT_ERROR_TYPES[hint]) return INSPECT_ERROR_TYPES[hint]!;
    for (const [pattern, type] of PATTERNS) if (pattern.test(hint)) return type;
  }
  return 'COMMAND_FAILED';
}

/** OUTPUT_TRUNCATED is a flag on a result that still arrived, never a failed call. */
export const succeededDespite = (type: ErrorType | null) => type === 'OUTPUT_TRUNCATED';
