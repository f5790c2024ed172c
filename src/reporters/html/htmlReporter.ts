import { writeFileAtomic } from '../../schema/atomicWrite.js';
import path from 'node:path';
import type { Reporter } from '../types.js';
import { renderHtml } from './renderHtml.js';

/** report.html: one self-contained, offline page (see renderHtml). */
export const htmlReporter: Reporter = {
  name: 'html',
  async write(report, outDir) {
    const file = path.join(outDir, 'report.html');
    await writeFileAtomic(file, await renderHtml(report, { traceRoot: outDir }), { durable: true });
    return file;
  },
};
