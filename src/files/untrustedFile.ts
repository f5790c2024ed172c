import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';

/** What reading a file that may be anything (a device, a FIFO, a growing file) found. */
export type UntrustedRead = { kind: 'absent' } | { kind: 'bytes'; bytes: Buffer } | { kind: 'invalid'; problem: string };

export interface UntrustedReadOptions {
  /** Most bytes read; a larger file is refused before any byte is read. */
  capBytes: number;
  /** What the file is, for messages (`trace file`, `file`). */
  noun: string;
  /** Refuse a symbolic link (its name or its folder): the file is an agent's, which may point it at a secret. */
  noLinks?: boolean;
}

const kindOf = (stat: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string =>
  stat.isDirectory() ? 'a directory' : stat.isFIFO() ? 'a FIFO' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : stat.isSocket() ? 'a socket' : 'not a regular file';

/**
 * Reads a file as untrusted input: never blocking on a FIFO (O_NONBLOCK), only a regular file, its
 * size checked before reading, and never more than the cap from the descriptor, whatever its size
 * claims (a device reports 0, a file may grow while it is read). The one check for every file
 * tracegate reads that someone else made: an agent's trace file, an imported trace.
 */
export function readUntrustedFile(file: string, options: UntrustedReadOptions): UntrustedRead {
  const { capBytes, noun } = options;
  if (options.noLinks) {
    // O_NOFOLLOW guards the file's own name; the agent may also have swapped its folder for a link.
    try {
      if (lstatSync(path.dirname(file)).isSymbolicLink()) return { kind: 'invalid', problem: `${noun} ${file}: its folder was replaced by a symbolic link` };
    } catch {
      return { kind: 'absent' };
    }
  }
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (options.noLinks ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'absent' };
    if (code === 'ELOOP' && options.noLinks) return { kind: 'invalid', problem: `${noun} ${file} is a symbolic link; write a regular file there` };
    if (code === 'EISDIR') return { kind: 'invalid', problem: `${noun} ${file} is a directory, not a regular file` };
    return { kind: 'invalid', problem: `${noun} ${file} cannot be opened (${code ?? 'error'})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'invalid', problem: `${noun} ${file} is ${kindOf(stat)}, not a regular file` };
    if (stat.size > capBytes) return { kind: 'invalid', problem: `${noun} ${file} is ${stat.size} bytes, over the ${capBytes}-byte cap` };
    // Read until end of file, at most one byte past the cap (a file that grew after fstat).
    let buffer = Buffer.alloc(Math.min(capBytes + 1, stat.size + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > capBytes) return { kind: 'invalid', problem: `${noun} ${file} grew over the ${capBytes}-byte cap while it was read` };
        const bigger = Buffer.alloc(Math.min(capBytes + 1, length * 2 + 64 * 1024));
        buffer.copy(bigger);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) return { kind: 'bytes', bytes: buffer.subarray(0, length) };
      length += n;
    }
  } catch (error) {
    return { kind: 'invalid', problem: `${noun} ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}
