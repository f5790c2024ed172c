import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraces } from '../../../src/traceio/formats.js';
import { qualifySharedSampleIds } from '../../../src/traceio/sampleIds.js';

const CORPUS = path.resolve(import.meta.dirname, '../../fixtures/conformance/inspect-eval');
const read = (name: string) => parseTraces(readFileSync(path.join(CORPUS, name)), name);

describe('Inspect sample ids across evals', () => {
  it('sample 1 of two different tasks (popularity, mmlu) becomes <task>/1 for both; ids no other task shares stay bare', () => {
    const popularity = read('popularity_dPiJifoWeEQBrfWsAopzWr.eval');
    const mmlu = read('mmlu-no-summary-choices.eval');
    qualifySharedSampleIds([popularity, mmlu]);
    expect(mmlu.traces.map((t) => t.task_id)).toEqual(['inspect_evals/mmlu_0_shot/1']);
    const ids = popularity.traces.map((t) => t.task_id);
    expect(ids).toContain('popularity/1');
    expect(ids).toContain('2');
    expect(new Set([...ids, ...mmlu.traces.map((t) => t.task_id)]).size).toBe(ids.length + 1);
  });

  it('one log, or two runs of the same task: ids stay bare (the same task\'s runs are its epochs)', () => {
    const one = read('mmlu-no-summary-choices.eval');
    qualifySharedSampleIds([one]);
    expect(one.traces[0]!.task_id).toBe('1');
    const a = read('log_read_sample.eval');
    const b = read('popularity_dPiJifoWeEQBrfWsAopzWr.eval');
    qualifySharedSampleIds([a, b]);
    expect(a.traces[0]!.task_id).toBe('1');
  });
});
