/** Span and trace ids as lowercase hex, whatever the source wrote: hex, 0x-hex, base64 or a decimal integer. */
export function hexId(v: unknown, bytes: 8 | 16): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v.toString(16).padStart(bytes * 2, '0');
  if (typeof v !== 'string' || v === '') return null;
  const s = v.trim();
  if (/^0x[0-9a-f]+$/i.test(s)) return s.slice(2).toLowerCase().padStart(bytes * 2, '0');
  if (/^[0-9a-f]+$/i.test(s) && (s.length === bytes * 2 || /[a-f]/i.test(s))) return s.toLowerCase().padStart(bytes * 2, '0');
  // Decimal integers (big ones arrive as text, see jsonText.ts) keep every digit through BigInt.
  if (/^\d+$/.test(s)) return BigInt(s).toString(16).padStart(bytes * 2, '0');
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(s)) {
    const raw = Buffer.from(s, 'base64');
    if (raw.length === bytes) return raw.toString('hex');
  }
  return null;
}

/** An all-zero or missing parent id means "no parent". */
export function parentId(v: unknown): string | null {
  const id = hexId(v, 8);
  return id === null || /^0+$/.test(id) ? null : id;
}
