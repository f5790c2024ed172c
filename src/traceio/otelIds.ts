import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Span and trace ids as lowercase hex, whatever the source wrote: hex, 0x-hex, base64, a decimal
 * integer (big ones read exactly), a UUID (older Phoenix exports: a trace id is its 16 bytes, a span
 * id a stable 8-byte hash), or any other text (a stable hash of it).
 */
export function hexId(v: unknown, bytes: 8 | 16): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v.toString(16).padStart(bytes * 2, '0');
  if (typeof v !== 'string' || v === '') return null;
  const s = v.trim();
  if (UUID.test(s)) {
    const hex = s.replace(/-/g, '').toLowerCase();
    return bytes === 16 ? hex : createHash('sha256').update(hex).digest('hex').slice(0, 16);
  }
  if (/^0x[0-9a-f]+$/i.test(s)) return s.slice(2).toLowerCase().padStart(bytes * 2, '0');
  if (/^[0-9a-f]+$/i.test(s) && (s.length === bytes * 2 || /[a-f]/i.test(s))) return s.toLowerCase().padStart(bytes * 2, '0');
  // Decimal integers (big ones arrive as text, see jsonText.ts) keep every digit through BigInt.
  if (/^\d+$/.test(s)) return BigInt(s).toString(16).padStart(bytes * 2, '0');
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(s)) {
    const raw = Buffer.from(s, 'base64');
    if (raw.length === bytes) return raw.toString('hex');
  }
  // Any other text (sanitized fixtures, a backend's own run ids): a stable id of its hash, so links between spans hold.
  return createHash('sha256').update(s).digest('hex').slice(0, bytes * 2);
}

/** An all-zero or missing parent id means "no parent". */
export function parentId(v: unknown): string | null {
  const id = hexId(v, 8);
  return id === null || /^0+$/.test(id) ? null : id;
}

/** Why an id was refused, for the error message: absent, or neither text nor a whole number. */
export function idProblem(name: string, v: unknown): string {
  return v === undefined || v === null || v === '' ? `${name} missing` : `${name} is not an id (${JSON.stringify(v).slice(0, 60)})`;
}
