import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SpanWriter, spanAttributes, writeSpan } from '../../src/schema/spanWriter.js';
import { ATTR, attr, VOCABULARY_KEYS } from '../../src/schema/traceVocabulary.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Type-checks a small module against the real writer: the diagnostics' messages, one a line. */
function typeErrors(source: string): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-spanwriter-'));
  const file = path.join(dir, 'probe.ts');
  writeFileSync(file, source.replaceAll('WRITER', JSON.stringify(path.join(ROOT, 'src/schema/spanWriter.js'))));
  const program = ts.createProgram([file], { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, types: [] });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

describe('the typed span writer', () => {
  it('writes canonical keys; undefined is left out, null is kept (known to be absent)', () => {
    expect(spanAttributes({ 'gen_ai.tool.name': 'read_file', approved: null, exit_code: undefined })).toEqual({ 'gen_ai.tool.name': 'read_file', approved: null });
    const span = writeSpan({ span_id: 'a', parent_id: null, kind: 'tool', name: 'tool read_file', start: 't', end: 't', status: 'ok', attributes: { step: 1 } });
    new SpanWriter(span).set({ 'gen_ai.tool.call.id': 'c1', 'result.ok': false }).end('error');
    expect(span).toMatchObject({ status: 'error', attributes: { step: 1, 'gen_ai.tool.call.id': 'c1', 'result.ok': false }, events: [] });
    expect(attr(span, 'toolCallId')).toBe('c1');
    expect(Object.keys(span.attributes).every((k) => VOCABULARY_KEYS.has(k))).toBe(true);
  });

  it('every vocabulary key is one attribute: no two names share a key or an older key', () => {
    const all = Object.values(ATTR).flatMap((d) => [d.key, ...d.legacy]);
    expect(new Set(all).size).toBe(all.length);
  });

  it('a key that is not in the vocabulary, a legacy spelling, or a value of the wrong type does not compile', () => {
    const errors = typeErrors(`
import { spanAttributes, writeSpan, SpanWriter } from WRITER;
export const ok = spanAttributes({ 'gen_ai.tool.name': 'x', step: 1, approved: null, 'llm.error': undefined });
export const unknown = spanAttributes({ 'llm.bogus': 1 });
export const legacy = spanAttributes({ 'tool.name': 'x' });
export const wrongType = spanAttributes({ step: 'one' });
export const onSpan = writeSpan({ span_id: '', parent_id: null, kind: 'tool', name: '', start: '', end: '', status: 'ok', attributes: { 'result.preview': 'x' } });
export function setter(w: SpanWriter) { w.set({ 'tool.call_id': 'c' }); }
`);
    expect(errors.join('\n')).toMatch(/'llm\.bogus'.*does not exist/);
    expect(errors.join('\n')).toMatch(/'tool\.name'.*does not exist/);
    expect(errors.join('\n')).toMatch(/'string' is not assignable to type 'number'/);
    expect(errors.join('\n')).toMatch(/'result\.preview'.*does not exist/);
    expect(errors.join('\n')).toMatch(/'tool\.call_id'.*does not exist/);
    // Nothing else: the valid line compiles.
    expect(errors).toHaveLength(5);
  }, 60_000);

  it('the producers (harness, capture proxy, external-agent adapters) hold no untyped attribute record and assign no key by hand', () => {
    const files = (dir: string): string[] =>
      readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
        .filter((e) => e.isFile() && e.name.endsWith('.ts'))
        .map((e) => path.relative(ROOT, path.join(e.parentPath ?? (e as { path?: string }).path ?? '', e.name)));
    // mergeSpans copies the attributes of spans an agent sent over OTLP, whatever their keys.
    const producers = [...files('harness'), ...files('src/capture'), ...files('src/adapters')].filter((f) => f !== path.join('src', 'capture', 'mergeSpans.ts'));
    expect(producers.length).toBeGreaterThan(20);
    for (const file of producers) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      expect(text, file).not.toMatch(/Record<string, AttributeValue/);
      expect(text, file).not.toMatch(/attributes\[[^\]]+\]\s*=[^=]/);
    }
  });
});
