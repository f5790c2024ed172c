import type { Trace } from '../schema/trace.js';
import { buildTrace } from './buildTrace.js';
import { claudeCode } from './claudeCode.js';
import { codexRollout } from './codexRollout.js';
import { ImportError } from './importError.js';
import { inspectEval, inspectJson } from './inspectLog.js';
import { parseJson, parseJsonLines, parseJsonStream, textOf } from './jsonText.js';
import { miniSweAgent } from './miniSweAgent.js';
import { openaiMessages } from './openaiMessages.js';
import { openHands } from './openHands.js';
import { otlpJson } from './otlpJson.js';
import { otlpProtobuf } from './otlpProtobuf.js';
import { jaegerJson, otelSdkSpans, phoenixSpans } from './spanExports.js';
import { sweAgentTraj } from './sweAgent.js';
import type { SniffInput, TraceFormat } from './traceFormat.js';
import { FORMAT_NAMES, type FormatName } from './formatNames.js';

/** Every importable format by name (detection tries them in FORMAT_NAMES's order). */
export const FORMATS: Readonly<Record<FormatName, TraceFormat>> = {
  'inspect-eval': inspectEval,
  'inspect-json': inspectJson,
  'otlp-json': otlpJson,
  'otlp-protobuf': otlpProtobuf,
  jaeger: jaegerJson,
  phoenix: phoenixSpans,
  'otel-sdk-spans': otelSdkSpans,
  'swe-agent': sweAgentTraj,
  'mini-swe-agent': miniSweAgent,
  openhands: openHands,
  'claude-code': claudeCode,
  codex: codexRollout,
  'openai-messages': openaiMessages,
};

/** Most bytes one imported file may have. */
export const MAX_FILE_BYTES = 512 * 1024 * 1024;

/** The file read once: JSON, else JSON Lines, else concatenated JSON values (console exporters). */
export function sniffInput(bytes: Uint8Array, fileName: string): SniffInput {
  if (bytes.length > MAX_FILE_BYTES) throw new ImportError('TOO_LARGE', fileName, `${bytes.length} bytes is more than the ${MAX_FILE_BYTES} an import reads`);
  const input: SniffInput = { fileName, bytes, json: undefined, jsonLines: undefined };
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return input; // a zip archive
  if (bytes.length === 0) throw new ImportError('EMPTY', fileName, 'the file is empty');
  const text = textOf(bytes);
  if (text.trim() === '') throw new ImportError('EMPTY', fileName, 'the file is empty');
  // Not JSON: a binary format (OTLP protobuf) may still claim it by its bytes.
  if (!/^\s*[[{]/.test(text)) return input;
  // JSON Lines (one value per line) is tried first when the first line is a whole value by itself.
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n')).trim();
  if (firstLine.length < text.trim().length && /^[[{].*[\]}]$/.test(firstLine)) {
    try {
      input.jsonLines = parseJsonLines(text, fileName);
      return input;
    } catch (lines) {
      // Not JSON Lines after all, or JSON Lines with one bad line: then that line is the error to name.
      try {
        input.json = parseJson(text, fileName);
        return input;
      } catch {
        try {
          input.jsonLines = parseJsonStream(text, fileName);
          return input;
        } catch {
          throw lines;
        }
      }
    }
  }
  try {
    input.json = parseJson(text, fileName);
    return input;
  } catch (whole) {
    try {
      input.jsonLines = parseJsonLines(text, fileName);
    } catch {
      try {
        input.jsonLines = parseJsonStream(text, fileName);
      } catch {
        throw whole;
      }
    }
    return input;
  }
}

export function detectFormat(input: SniffInput): FormatName | null {
  return FORMAT_NAMES.find((name) => FORMATS[name].sniff(input)) ?? null;
}

export interface ImportedFile {
  file: string;
  format: FormatName;
  traces: Trace[];
}

/** Pure: one file's bytes → its traces. `format` 'auto' detects; a named format must also fit. */
export function parseTraces(bytes: Uint8Array, fileName: string, format: FormatName | 'auto' = 'auto'): ImportedFile {
  const input = sniffInput(bytes, fileName);
  const name = format === 'auto' ? detectFormat(input) : format;
  if (name === null) {
    throw new ImportError('UNKNOWN_FORMAT', fileName, `not a format tracegate imports (${FORMAT_NAMES.join(', ')}); pass --format to say which`);
  }
  if (format !== 'auto' && !FORMATS[name].sniff(input)) {
    throw new ImportError('BAD_FORMAT', fileName, `does not look like ${name} (${FORMATS[name].label})`);
  }
  let traces: Trace[];
  try {
    const conversations: Array<ReturnType<TraceFormat['parse']>[number] | null> = FORMATS[name].parse(input);
    // Large files: let the parsed JSON and each conversation go as soon as they are used.
    input.json = input.jsonLines = undefined;
    traces = conversations.map((c, i) => {
      conversations[i] = null;
      return buildTrace(c!);
    });
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError('BAD_FORMAT', fileName, `${name}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (traces.length === 0) throw new ImportError('EMPTY', fileName, `${name}: no trace in the file`);
  return { file: fileName, format: name, traces };
}
