import { gzipSync } from 'node:zlib';

/**
 * JSON text as report.html embeds a block (a trace, a chunk of task details): gzip-compressed, then
 * base64, inert until the viewer inflates it. A module of its own (zlib only) so the trial-writer
 * thread can pack without loading the schemas.
 */
export function packJson(json: string, level = 6): string {
  return gzipSync(json, { level }).toString('base64');
}
