import { writeFileAtomic } from '../../schema/atomicWrite.js';
import path from 'node:path';
import type { Reporter } from '../types.js';
import { renderHtmlChunks } from './renderHtml.js';
import type { ViewerTraces } from './viewerTraces.js';

/** report.html: one self-contained, offline page (see renderHtmlChunks); `packed`: traces the run packed already. */
export function htmlReporter(packed?: ViewerTraces): Reporter {
  return {
    name: 'html',
    async onRunEnd(report, outDir) {
      const file = path.join(outDir, 'report.html');
      await writeFileAtomic(file, renderHtmlChunks(report, { traceRoot: outDir, ...(packed ? { packed } : {}) }), { durable: true });
      return file;
    },
  };
}
