import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { llmSpans, toolAttr, toolSpans } from '../../../src/schema/trace.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { mergeSplitTraces } from '../../../src/traceio/splitTraces.js';
import { FIXTURES } from '../../helpers/samples.js';

const read = (file: string) => readFileSync(file);

describe('a trace split across files', () => {
  it('OTLP parts with one trace id are read as one trace: every call, steps in order, the answer from the last part', () => {
    const files = ['otlp/split-part1.json', 'otlp/split-part2.json'].map((f) => path.join(FIXTURES, f));
    const parts = files.map((f) => parseTraces(read(f), f));
    expect(parts.map((p) => p.traces[0]!.trace_id)).toEqual(['5b8efff798038103d269b633813fc60c', '5b8efff798038103d269b633813fc60c']);
    const { imported, warnings } = mergeSplitTraces(parts, read);
    expect(warnings).toEqual([]);
    expect(imported).toHaveLength(1);
    const [t] = imported[0]!.traces;
    expect(imported[0]!.traces).toHaveLength(1);
    expect(llmSpans(t!)).toHaveLength(3);
    expect(toolSpans(t!).map((s) => [toolAttr(s).name, toolAttr(s).step])).toEqual([
      ['get_weather', 1],
      ['read_file', 2],
    ]);
    expect(t!.task_id).toBe('split-part1');
    expect(t!.final_answer.exit_reason).toBe('completed');
  });

  it('parts of a format that cannot be read together stay separate traces, with a warning naming the files', () => {
    const file = path.join(FIXTURES, 'phoenix', 'uuid-spans.json');
    const parts = [parseTraces(read(file), 'a.json'), parseTraces(read(file), 'b.json')];
    const { imported, warnings } = mergeSplitTraces(parts, () => read(file));
    expect(imported).toHaveLength(2);
    expect(warnings).toEqual([expect.stringMatching(/^trace 409df945e0584829b240cfbdd2ff4488 is split across a\.json \+ b\.json/)]);
  });
});
