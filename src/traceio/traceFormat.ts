import type { Conversation } from './conversation.js';

/**
 * One stored-trace format: `sniff` says whether a parsed file looks like it (cheap, no throw),
 * `parse` turns the file (read once, shared) into conversations (one per sample × epoch, per trace id). Both pure.
 */
export interface TraceFormat {
  label: string;
  /** File name endings this format is usually saved with (for the docs and for detection ties). */
  extensions: readonly string[];
  sniff(file: SniffInput): boolean;
  parse(file: SniffInput): Conversation[];
}

/** What detection looks at: the name, the first bytes, and (when the file is JSON) its value. */
export interface SniffInput {
  fileName: string;
  bytes: Uint8Array;
  /** The parsed JSON value, or the parsed lines of a JSON Lines file; undefined when neither. */
  json: unknown;
  jsonLines: unknown[] | undefined;
}
