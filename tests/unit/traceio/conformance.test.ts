import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attr, llmSpans, toolAttr, toolSpans, type Trace } from '../../../src/schema/trace.js';
import { parseTraces } from '../../../src/traceio/formats.js';

/**
 * The conformance corpus: real files from upstream repositories (tests/fixtures/conformance/<format>/,
 * origins in each ORIGIN.md), and the facts scripts/countFacts.mjs counted from their raw bytes without
 * the importers (expected.json). Every file must be detected as its format and read to the same facts.
 */
const CORPUS = path.resolve(import.meta.dirname, '../../fixtures/conformance');

interface Facts {
  model_calls: number;
  tool_calls: string[];
  errors: number;
  final_answer: string | null;
}

const factsOf = (t: Trace): Facts => ({
  model_calls: llmSpans(t).length,
  tool_calls: toolSpans(t).map((s) => toolAttr(s).name),
  // Failed as the file says; a call whose result never came back is not counted as failed.
  errors: toolSpans(t).filter((s) => attr(s, 'resultOk') === false).length,
  final_answer: t.final_answer.text,
});
// Traces are compared as a set: a file's traces may come in another order than its samples.
const sorted = (facts: Facts[]) => facts.map((f) => JSON.stringify(f)).sort();

for (const format of readdirSync(CORPUS).filter((f) => statSync(path.join(CORPUS, f)).isDirectory()).sort()) {
  const dir = path.join(CORPUS, format);
  const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Record<string, { format: string; traces: Facts[] }>;
  describe(`conformance: ${format}`, () => {
    it('every file of the folder has its counted facts and its origin', () => {
      const files = readdirSync(dir).filter((f) => !/\.(md|mjs)$/.test(f) && f !== 'expected.json');
      expect(files.sort()).toEqual(Object.keys(expected).sort());
      const origin = readFileSync(path.join(dir, 'ORIGIN.md'), 'utf8');
      for (const f of files) expect(origin, `${f} in ORIGIN.md`).toContain(f);
    });
    for (const [file, want] of Object.entries(expected)) {
      it(`${file}: detected as ${want.format}; model calls, tool calls in order, errors and final answer as counted`, () => {
        const imported = parseTraces(readFileSync(path.join(dir, file)), file);
        expect(imported.format).toBe(want.format);
        expect(sorted(imported.traces.map(factsOf))).toEqual(sorted(want.traces));
      });
    }
  });
}

describe('conformance: ids read exactly', () => {
  it("any-agent's decimal 128-bit trace id (100927429609276267646756448943279827607, beyond 2^53) becomes its exact hex", () => {
    const file = path.join(CORPUS, 'otel-sdk-spans/any-agent-OPENAI_trace.json');
    const [t] = parseTraces(readFileSync(file), file).traces;
    expect(t!.trace_id).toBe(BigInt('100927429609276267646756448943279827607').toString(16).padStart(32, '0'));
  });
});
