import { describe, expect, it } from 'vitest';
import { reportJsonChunks } from '../../src/reporters/jsonReporter.js';
import { makeReport } from '../helpers/reportBuilder.js';

describe('report.json', () => {
  it('is written in chunks, byte for byte the pretty JSON of the whole report', () => {
    for (const report of [makeReport([{ id: 'a', trials: 'pf' }, { id: 'b', trials: 'ee' }, { id: 'c "quoted"\n', trials: 'pp' }]), makeReport([])]) {
      expect([...reportJsonChunks(report)].join('')).toBe(JSON.stringify(report, null, 2) + '\n');
    }
  });
});
