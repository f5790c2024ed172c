/**
 * The name of every format `tracegate import` reads, in the order detection tries them (most
 * specific first). Plain data, so the CLI's help lists them without loading the importers;
 * formats.ts maps each name to its importer, and fails to compile when the two lists differ.
 */
export const FORMAT_NAMES = [
  'inspect-eval',
  'inspect-json',
  'otlp-json',
  'otlp-protobuf',
  'jaeger',
  'phoenix',
  'otel-sdk-spans',
  'swe-agent',
  'mini-swe-agent',
  'openhands',
  'claude-code',
  'codex',
  'openai-messages',
] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];
