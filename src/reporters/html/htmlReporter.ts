import { writeFileAtomic } from '../../files/atomicWrite.js';
import path from 'node:path';
import type { Reporter } from '../reporter.js';
import { ViewerTraces } from './viewerTraces.js';

/**
 * report.html: one self-contained, offline page (see renderHtmlChunks). It keeps a packed copy of
 * each trace the run stores, while it has room (ViewerTraces), so the page need not read them again.
 */
export function htmlReporter(): Reporter {
  const packed = new ViewerTraces();
  return {
    name: 'html',
    onTraceStored: ({ trace }) => packed.claim(trace),
    onTracePacked: (file, json) => packed.add(file, json),
    async onRunEnd(report, outDir) {
      const file = path.join(outDir, 'report.html');
      // The page's renderer loads when the page is written, not with every run that passes --no-html.
      const { renderHtmlChunks } = await import('./renderHtml.js');
      await writeFileAtomic(file, renderHtmlChunks(report, { traceRoot: outDir, packed }), { durable: true });
      return file;
    },
  };
}
