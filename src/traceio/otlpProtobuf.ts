import { decodeOtlpProtobuf } from './otlpProto.js';
import { ImportError } from './importError.js';
import { otlpRequestConversations } from './otlpJson.js';
import type { TraceFormat } from './traceFormat.js';

/** Field 1 (resource_spans), length-delimited: how every ExportTraceServiceRequest and TracesData begins. */
const RESOURCE_SPANS_TAG = 0x0a;

function varint(bytes: Uint8Array, at: number): { value: number; next: number } | null {
  let value = 0;
  for (let shift = 0, i = at; i < bytes.length && shift < 35; shift += 7, i++) {
    value += (bytes[i]! & 0x7f) * 2 ** shift;
    if (bytes[i]! < 0x80) return { value, next: i + 1 };
  }
  return null;
}

/**
 * Cuts a file into messages by one framing, or null when the framing does not fit the whole file:
 * the spec's file exporter writes varint-delimited messages, the Collector's file exporter (format:
 * proto) a 4-byte big-endian length before each.
 */
function frames(bytes: Uint8Array, framing: 'varint' | 'uint32'): Uint8Array[] | null {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    let length: number;
    if (framing === 'varint') {
      const v = varint(bytes, at);
      if (!v) return null;
      [length, at] = [v.value, v.next];
    } else {
      if (at + 4 > bytes.length) return null;
      length = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
      at += 4;
    }
    if (length === 0 || at + length > bytes.length || bytes[at] !== RESOURCE_SPANS_TAG) return null;
    out.push(bytes.subarray(at, at + length));
    at += length;
  }
  return out.length > 0 ? out : null;
}

/** The file's messages: delimited ones when a framing covers the file exactly, else one message. */
function messages(bytes: Uint8Array): Uint8Array[] {
  return frames(bytes, 'uint32') ?? frames(bytes, 'varint') ?? [bytes];
}

const decodes = (bytes: Uint8Array) => {
  try {
    const request = decodeOtlpProtobuf(bytes) as { resourceSpans?: unknown[] };
    return Array.isArray(request.resourceSpans) && request.resourceSpans.length > 0;
  } catch {
    return false;
  }
};

export const otlpProtobuf: TraceFormat = {
  label: 'OTLP protobuf file (ExportTraceServiceRequest or TracesData; single, varint-delimited or 4-byte length-prefixed)',
  extensions: ['.pb', '.binpb', '.otlp', '.bin'],
  // Binary, not JSON; the first message must decode as spans (a random binary file does not).
  sniff: ({ bytes, json, jsonLines }) => json === undefined && jsonLines === undefined && bytes.length > 0 && decodes(messages(bytes)[0]!),
  parse: ({ bytes, fileName }) =>
    otlpRequestConversations(
      messages(bytes).map((m, i) => {
        try {
          return decodeOtlpProtobuf(m);
        } catch (error) {
          throw new ImportError('BAD_FORMAT', fileName, `OTLP protobuf message ${i + 1}: ${(error as Error).message}`);
        }
      }),
      'otlp-protobuf',
      fileName,
    ),
};
