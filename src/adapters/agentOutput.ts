import { AgentOutputSchema, AGENT_OUTPUT_SCHEMA_VERSION, ChatMessagesSchema, describeIssues, type AgentOutput, type ChatMessage } from '../schema/agentIo.js';
import { TraceSchema, type Trace } from '../schema/trace.js';
import { readUntrustedFile } from '../files/untrustedFile.js';

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

/** The optional trace file an agent wrote: a tracegate trace/v1, or an OpenAI messages array. */
export function readTraceFile(file: string): ParsedTraceFile {
  // The agent's own file: it may be a link to a secret, a FIFO that never ends, a device.
  const read = readUntrustedFile(file, { capBytes: TRACE_FILE_CAP_BYTES, noun: 'trace file', noLinks: true });
  if (read.kind !== 'bytes') return read;
  let value: unknown;
  try {
    value = JSON.parse(read.bytes.toString('utf8'));
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
