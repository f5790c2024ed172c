/**
 * How long a provider asked us to wait, in ms, from `retry-after-ms` (OpenAI, Azure) or
 * `retry-after` as seconds or an HTTP-date (RFC 9110 §10.2.3). Null when absent or unreadable.
 */
export function retryAfterMs(headers: { get(name: string): string | null }, now: number = Date.now()): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
