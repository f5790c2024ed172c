import { encodeOtlpProtobuf } from '../capture/otlpProto.js';

export type OtlpProtocol = 'http/json' | 'http/protobuf';

/** Where OTLP/HTTP traces go: a base endpoint gets `/v1/traces`, a full `/v1/traces` URL is kept. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/$/, '')}/v1/traces`;
  return url.toString();
}

/** POSTs one ExportTraceServiceRequest; a non-2xx answer is an error with the status and body. */
export async function sendOtlp(endpoint: string, request: unknown, protocol: OtlpProtocol, headers: Record<string, string>, timeoutMs = 30_000): Promise<void> {
  const body = protocol === 'http/json' ? JSON.stringify(request) : new Blob([Buffer.from(encodeOtlpProtobuf(request))]);
  const response = await fetch(tracesUrl(endpoint), {
    method: 'POST',
    headers: { ...headers, 'content-type': protocol === 'http/json' ? 'application/json' : 'application/x-protobuf' },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) {
    const text = (await response.text()).slice(0, 300);
    throw new Error(`${tracesUrl(endpoint)} answered ${response.status} ${response.statusText}${text ? `: ${text}` : ''}`);
  }
}
