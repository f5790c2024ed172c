/** A body as far as it was read. */
export interface CappedBody {
  bytes: Buffer<ArrayBuffer>;
  /** The cap was passed: the rest was cancelled (`bytes` holds the chunk that passed it). */
  over: boolean;
  /** The body broke off (a reset, fewer bytes than its Content-Length); `bytes` is what came first. */
  error: unknown;
}

/**
 * Reads a body until it ends or more than `max` bytes have come, then cancels the rest: an endless
 * or enormous body from an untrusted server costs the cap, not memory without limit.
 */
export async function readStreamCapped(body: ReadableStream<Uint8Array>, max: number): Promise<CappedBody> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      chunks.push(chunk.value);
      size += chunk.value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        return { bytes: Buffer.concat(chunks), over: true, error: null };
      }
    }
  } catch (error) {
    return { bytes: Buffer.concat(chunks), over: false, error };
  }
  return { bytes: Buffer.concat(chunks), over: false, error: null };
}
