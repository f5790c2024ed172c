import { inflateRawSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { ImportError } from './importError.js';

// fzstd (pure JS) loads on the first zstd member, not with every CLI start; Node 20's zlib has no zstd.
const require = createRequire(import.meta.url);
const zstd = () => require('fzstd') as typeof import('fzstd');

/** The compression methods a member may use: stored, deflate, zstd (Inspect's default since 0.3.206). */
const METHOD = { stored: 0, deflate: 8, zstd: 93 } as const;

export interface ZipMember {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Where the member's local header starts. */
  offset: number;
}

const EOCD = 0x06054b50;
const ZIP64_EOCD = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * The members of a zip archive, read from its central directory (what every zip reader trusts; the
 * local headers may carry zero sizes when a data descriptor follows). Zip64 sizes and offsets are
 * read. Two members with one name are an error: readers disagree on which one wins, and taking
 * either silently loses a sample.
 */
export function zipMembers(zip: Uint8Array, fileName: string): ZipMember[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const bad = (why: string) => new ImportError('BAD_ARCHIVE', fileName, `not a readable zip archive (${why})`);
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw bad('no end of central directory; the file is cut short');
  let count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if ((count === 0xffff || at === 0xffffffff) && end >= 20 && view.getUint32(end - 20, true) === ZIP64_LOCATOR) {
    const z64 = Number(view.getBigUint64(end - 12, true));
    if (z64 + 56 > zip.length || view.getUint32(z64, true) !== ZIP64_EOCD) throw bad('a broken zip64 directory');
    count = Number(view.getBigUint64(z64 + 32, true));
    at = Number(view.getBigUint64(z64 + 48, true));
  }
  const members: ZipMember[] = [];
  const seen = new Set<string>();
  const decoder = new TextDecoder('utf-8');
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== CENTRAL) throw bad(`central directory entry ${n + 1} is broken`);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const name = decoder.decode(zip.subarray(at + 46, at + 46 + nameLength));
    let compressedSize = view.getUint32(at + 20, true);
    let size = view.getUint32(at + 24, true);
    let offset = view.getUint32(at + 42, true);
    // Zip64: the fields set to all ones are in the 0x0001 extra field, in this order.
    for (let x = at + 46 + nameLength; x + 4 <= at + 46 + nameLength + extraLength; ) {
      const id = view.getUint16(x, true);
      const length = view.getUint16(x + 2, true);
      if (id === 1) {
        let p = x + 4;
        const next = () => Number(view.getBigUint64((p += 8) - 8, true));
        if (size === 0xffffffff) size = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (offset === 0xffffffff) offset = next();
      }
      x += 4 + length;
    }
    if (seen.has(name)) throw new ImportError('BAD_ARCHIVE', fileName, `the archive holds "${name}" twice; which copy is the log's cannot be told`);
    seen.add(name);
    members.push({ name, method: view.getUint16(at + 10, true), compressedSize, size, offset });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return members;
}

/** One member's bytes, decompressed; more than `cap` bytes out stops the decoder there (a zip bomb is refused, not unpacked). */
export function readMember(zip: Uint8Array, member: ZipMember, fileName: string, cap: number): Uint8Array {
  const where = `${fileName}:${member.name}`;
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  if (member.offset + 30 > zip.length || view.getUint32(member.offset, true) !== LOCAL) throw new ImportError('BAD_ARCHIVE', where, 'the member\'s local header is missing');
  const start = member.offset + 30 + view.getUint16(member.offset + 26, true) + view.getUint16(member.offset + 28, true);
  if (start + member.compressedSize > zip.length) throw new ImportError('BAD_ARCHIVE', where, 'the member is cut short');
  const data = zip.subarray(start, start + member.compressedSize);
  const tooLarge = () => new ImportError('TOO_LARGE', where, `unpacks to more than the ${cap} bytes a member may have`);
  if (member.size > cap) throw tooLarge();
  try {
    if (member.method === METHOD.stored) return data;
    if (member.method === METHOD.deflate) return inflateRawSync(data, { maxOutputLength: cap });
    if (member.method === METHOD.zstd) return unzstd(data, cap, tooLarge);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new ImportError('BAD_ARCHIVE', where, `cannot be unpacked (${(error as Error).message})`);
  }
  throw new ImportError('BAD_ARCHIVE', where, `compression method ${member.method} is not one tracegate reads (stored, deflate, zstd)`);
}

/** zstd, every frame of it (Inspect's writer may emit several), streamed so the cap stops it early. */
function unzstd(data: Uint8Array, cap: number, tooLarge: () => Error): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new (zstd().Decompress)((chunk) => {
    total += chunk.length;
    if (total > cap) throw tooLarge();
    chunks.push(chunk);
  });
  const STEP = 1 << 16;
  for (let i = 0; i < data.length; i += STEP) stream.push(data.subarray(i, Math.min(data.length, i + STEP)), i + STEP >= data.length);
  if (data.length === 0) stream.push(new Uint8Array(0), true);
  return Buffer.concat(chunks, total);
}
