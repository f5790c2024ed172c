/** What the upstream key becomes in anything the proxy passes back to an agent. */
export const KEY_MASK = '[REDACTED:upstream_key]';

/**
 * Replaces the exact upstream key in text streamed to an agent (an upstream that echoes the
 * Authorization header in a 200 body). A chunk may end in the first part of the key, so only a tail
 * that could still grow into the key is held back until the next chunk; anything else passes at once.
 */
export class KeyScrubber {
  private held = '';

  constructor(private readonly key: string | null) {}

  push(text: string): string {
    if (!this.key) return text;
    const out = (this.held + text).split(this.key).join(KEY_MASK);
    let keep = Math.min(out.length, this.key.length - 1);
    while (keep > 0 && !this.key.startsWith(out.slice(out.length - keep))) keep--;
    this.held = out.slice(out.length - keep);
    return out.slice(0, out.length - keep);
  }

  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}

/** A whole body with every occurrence of the key masked, byte for byte otherwise. */
export function scrubKeyBytes(body: Buffer, key: string | null): Buffer {
  if (!key) return body;
  const needle = Buffer.from(key);
  let at = body.indexOf(needle);
  if (at < 0) return body;
  const parts: Buffer[] = [];
  let from = 0;
  const mask = Buffer.from(KEY_MASK);
  while (at >= 0) {
    parts.push(body.subarray(from, at), mask);
    from = at + needle.length;
    at = body.indexOf(needle, from);
  }
  parts.push(body.subarray(from));
  return Buffer.concat(parts);
}
