import { writeFileAtomic } from '../schema/atomicWrite.js';
import path from 'node:path';
import type { Reporter } from './types.js';

export const jsonReporter: Reporter = {
  name: 'json',
  async write(report, outDir) {
    const file = path.join(outDir, 'report.json');
    await writeFileAtomic(file, JSON.stringify(report, null, 2) + '\n', { durable: true });
    return file;
  },
};
