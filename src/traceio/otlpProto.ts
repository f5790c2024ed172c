import { createRequire } from 'node:module';
import type protobufNs from 'protobufjs';

// protobufjs loads on the first protobuf body, not with every CLI start.
const require = createRequire(import.meta.url);
let protobufModule: typeof protobufNs | undefined;
const protobuf = (): typeof protobufNs => (protobufModule ??= require('protobufjs') as typeof protobufNs);

/**
 * The OTLP trace messages (opentelemetry-proto, trace/v1, common/v1, resource/v1, collector/trace/v1)
 * as protobufjs reads them: the schema only; encoding and decoding are protobufjs's.
 */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
  message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
}
message Status { string message = 2; int32 code = 3; }
`;

let requestType: protobufNs.Type | undefined;
function exportRequest(): protobufNs.Type {
  requestType ??= protobuf().parse(OTLP_TRACE_PROTO, { keepCase: false }).root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');
  return requestType;
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** Walks a decoded message, turning id bytes into hex (as OTLP/JSON writes them). */
function idsToHex(v: unknown, key = ''): unknown {
  if (v instanceof Uint8Array) return ID_FIELDS.has(key) ? Buffer.from(v).toString('hex') : Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map((x) => idsToHex(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, idsToHex(x, k)]));
  return v;
}

/** OTLP/HTTP protobuf body → the OTLP/JSON object shape (camelCase, hex ids, 64-bit ints as text). */
export function decodeOtlpProtobuf(body: Uint8Array): unknown {
  const type = exportRequest();
  const message = type.decode(body);
  return idsToHex(type.toObject(message, { longs: String, enums: Number, bytes: Uint8Array as never, defaults: false, arrays: true, oneofs: false }));
}

function hexToBytes(v: unknown, key = ''): unknown {
  if (typeof v === 'string' && ID_FIELDS.has(key)) return Buffer.from(v, 'hex');
  if (Array.isArray(v)) return v.map((x) => hexToBytes(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hexToBytes(x, k)]));
  return v;
}

/** The OTLP/JSON object shape → an OTLP/HTTP protobuf body. */
export function encodeOtlpProtobuf(request: unknown): Uint8Array {
  const type = exportRequest();
  return type.encode(type.fromObject(hexToBytes(request) as Record<string, unknown>)).finish();
}
