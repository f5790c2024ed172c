import type { ErrorPattern } from './trafficSpans.js';

/**
 * The texts the major agent frameworks send back to the model in place of a tool's result when the
 * tool threw, or when the call could not run, recognized as errors by default (after the suite's own
 * `error_patterns`, which win, so a suite can name any of them otherwise):
 * - OpenAI Agents SDK (Python and JS): "An error occurred while running the tool. Please try again. Error: …";
 * - LangChain / LangGraph ToolNode: "Error: … Please fix your mistakes.", and its unknown tool
 *   "Error: Tool "x" not found";
 * - Vercel AI SDK error results for calls it could not run: "Invalid input for tool x: …",
 *   "Model tried to call unavailable tool 'x'".
 * Each is anchored to the framework's own wording, so a tool whose output merely mentions an error is
 * not taken for one.
 */
const rule = (source: RegExp, error_type: string): ErrorPattern => ({ pattern: { test: (text) => source.test(text) }, error_type });

export const FRAMEWORK_ERROR_PATTERNS: readonly ErrorPattern[] = [
  rule(/^\s*(Error: )?Tool "?[^"\n]*"? not found/, 'UNKNOWN_TOOL'),
  rule(/^\s*Model tried to call unavailable tool\b/, 'UNKNOWN_TOOL'),
  rule(/^\s*Invalid input for tool [^:\n]+:/, 'INVALID_ARGUMENTS'),
  rule(/^\s*An error occurred while running the tool\b/, 'TOOL_ERROR'),
  rule(/^\s*Error: [\s\S]*Please fix your mistakes\.\s*$/, 'TOOL_ERROR'),
];
