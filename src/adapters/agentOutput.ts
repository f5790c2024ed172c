import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { AgentOutputSchema, AGENT_OUTPUT_SCHEMA_VERSION, ChatMessagesSchema, describeIssues, type AgentOutput, type ChatMessage } from '../schema/agentIo.js';
import { TraceSchema, type Trace } from '../schema/trace.js';

export const TRACE_FILE_CAP_BYTES = 32 * 1024 * 1024;

/** What an agent printed: plain text, an agent-output/v1 object, or something that claims to be one and is not. */
export type ParsedOutput =
  | { kind: 'text'; text: string }
  | { kind: 'json'; output: AgentOutput }
  | { kind: 'invalid'; problem: string };

/**
 * Plain text unless it is meant as JSON: text that starts with `{` and ends with `}` must parse, and
 * an object that names `schema_version` must be a valid agent-output/v1. Other JSON is an answer.
 */
export function parseAgentOutput(stdout: string, truncated: boolean): ParsedOutput {
  const text = stdout.trim();
  if (!(text.startsWith('{') && (text.endsWith('}') || truncated))) return { kind: 'text', text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', problem: `stdout looks like JSON but does not parse${truncated ? ' (it was cut at the output cap)' : ''}: ${(error as Error).message}` };
  }
  if (!value || typeof value !== 'object' || !('schema_version' in value)) return { kind: 'text', text };
  const result = AgentOutputSchema.safeParse(value);
  return result.success
    ? { kind: 'json', output: result.data }
    : { kind: 'invalid', problem: `stdout is not a valid ${AGENT_OUTPUT_SCHEMA_VERSION} object: ${describeIssues(result.error)}` };
}

export type ParsedTraceFile =
  | { kind: 'absent' }
  | { kind: 'trace'; trace: Trace }
  | { kind: 'messages'; messages: ChatMessage[] }
  | { kind: 'invalid'; problem: string };

/**
 * A JSON.parse message without the text it quotes (V8 cites the start of the input): the file is
 * the agent's, and what it holds may be anything (a secret read through a link, binary noise).
 */
function jsonProblem(error: unknown): string {
  const message = (error as Error).message;
  const at = /at position (\d+)/.exec(message);
  if (at) return `a syntax error at character ${at[1]}`;
  if (/end of JSON input/.test(message)) return 'it ends before the JSON does';
  return 'a syntax error';
}

const kindOf = (stat: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string =>
  stat.isDirectory() ? 'a directory' : stat.isFIFO() ? 'a FIFO' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : stat.isSocket() ? 'a socket' : 'not a regular file';

/**
 * Reads the agent's trace file as untrusted input: never through a symlink (O_NOFOLLOW), never
 * blocking on a FIFO (O_NONBLOCK), only a regular file, and never more than the cap from the
 * descriptor, whatever its size claims (a device reports 0, a file may grow while it is read).
 */
function readCapped(file: string): { kind: 'absent' } | { kind: 'text'; text: string } | { kind: 'invalid'; problem: string } {
  // O_NOFOLLOW guards the file's own name; the agent may also have swapped its folder for a link.
  try {
    if (lstatSync(path.dirname(file)).isSymbolicLink()) return { kind: 'invalid', problem: `trace file ${file}: its folder was replaced by a symbolic link` };
  } catch {
    return { kind: 'absent' };
  }
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'absent' };
    if (code === 'ELOOP') return { kind: 'invalid', problem: `trace file ${file} is a symbolic link; write a regular file there` };
    return { kind: 'invalid', problem: `trace file ${file} cannot be opened (${code ?? 'error'})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'invalid', problem: `trace file ${file} is ${kindOf(stat)}, not a regular file` };
    if (stat.size > TRACE_FILE_CAP_BYTES) return { kind: 'invalid', problem: `trace file ${file} is ${stat.size} bytes, over the ${TRACE_FILE_CAP_BYTES}-byte cap` };
    // Read until end of file, at most one byte past the cap (a file that grew after fstat).
    let buffer = Buffer.alloc(Math.min(TRACE_FILE_CAP_BYTES + 1, stat.size + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > TRACE_FILE_CAP_BYTES) return { kind: 'invalid', problem: `trace file ${file} grew over the ${TRACE_FILE_CAP_BYTES}-byte cap while it was read` };
        const bigger = Buffer.alloc(Math.min(TRACE_FILE_CAP_BYTES + 1, length * 2 + 64 * 1024));
        buffer.copy(bigger);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) return { kind: 'text', text: buffer.subarray(0, length).toString('utf8') };
      length += n;
    }
  } catch (error) {
    return { kind: 'invalid', problem: `trace file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}

/** The optional trace file an agent wrote: a tracegate trace/v1, or an OpenAI messages array. */
export function readTraceFile(file: string): ParsedTraceFile {
  const read = readCapped(file);
  if (read.kind !== 'text') return read;
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch (error) {
    return { kind: 'invalid', problem: `trace file ${file} is not JSON: ${jsonProblem(error)}` };
  }
  if (Array.isArray(value)) {
    const messages = ChatMessagesSchema.safeParse(value);
    return messages.success
      ? { kind: 'messages', messages: messages.data }
      : { kind: 'invalid', problem: `trace file ${file} is not an OpenAI messages array: ${describeIssues(messages.error)}` };
  }
  const trace = TraceSchema.safeParse(value);
  return trace.success
    ? { kind: 'trace', trace: trace.data }
    : { kind: 'invalid', problem: `trace file ${file} is not a tracegate trace/v1: ${describeIssues(trace.error)}` };
}
