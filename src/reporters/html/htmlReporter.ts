import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Reporter } from '../types.js';
import { renderHtml } from './renderHtml.js';

/** report.html: one self-contained, offline page (see renderHtml). */
export const htmlReporter: Reporter = {
  name: 'html',
  async write(report, outDir) {
    const file = path.join(outDir, 'report.html');
    await writeFile(file, await renderHtml(report, { traceRoot: outDir }));
    return file;
  },
};
