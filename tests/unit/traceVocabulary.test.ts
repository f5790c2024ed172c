import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractMarkdown } from '../../src/schema/traceContract.js';
import { ATTR, attr, attributes, toolAttr, vocabularyForViewer } from '../../src/schema/traceVocabulary.js';
import { ROOT } from '../helpers/cli.js';

const span = (attributes: Record<string, string | number | boolean | null | string[]>) => ({ attributes });

describe('the trace vocabulary', () => {
  it('reads the GenAI key, then the older key trace/v1 files carry; a value of the wrong type reads as absent', () => {
    expect(attr(span({ 'gen_ai.tool.name': 'read_file' }), 'toolName')).toBe('read_file');
    expect(attr(span({ 'tool.name': 'read_file' }), 'toolName')).toBe('read_file');
    expect(attr(span({ 'gen_ai.tool.name': 'new', 'tool.name': 'old' }), 'toolName')).toBe('new');
    expect(attr(span({ 'gen_ai.tool.name': 3, 'tool.name': 'old' }), 'toolName')).toBe('old');
    expect(attr(span({ step: '2' }), 'step')).toBeNull();
    expect(attr(span({ 'result.preview': 'out' }), 'toolResult')).toBe('out');
    expect(toolAttr(span({ 'tool.call_id': 'c', 'tool.arguments': '{}', 'result.ok': true })).arguments).toBe('{}');
  });

  it('writes canonical keys and leaves out nulls', () => {
    expect(attributes({ toolName: 'x', toolCallId: null, step: 2 })).toEqual({ 'gen_ai.tool.name': 'x', step: 2 });
  });

  it('keys are unique: no key is both canonical and an older key of another attribute', () => {
    const all = Object.values(ATTR).flatMap((d) => [d.key, ...d.legacy]);
    expect(new Set(all).size).toBe(all.length);
  });

  it('the viewer (plain JS) reads only names the vocabulary defines, and the page carries the vocabulary', () => {
    const viewer = readFileSync(path.join(ROOT, 'src/reporters/html/assets/viewer.js'), 'utf8');
    const used = [...viewer.matchAll(/attr\(span, '([^']+)'\)/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(15);
    for (const name of used) expect(Object.keys(ATTR), `viewer.js reads '${name}'`).toContain(name);
    expect(viewer).not.toMatch(/span\.attributes\[['"]/);
    expect(vocabularyForViewer().toolName).toEqual(['gen_ai.tool.name', 'tool.name']);
    expect(readFileSync(path.join(ROOT, 'src/reporters/html/renderHtml.ts'), 'utf8')).toMatch(/vocabulary: vocabularyForViewer\(\)/);
  });

  it('checks, classifier and story read attributes only through the vocabulary', () => {
    for (const file of ['src/judging/checks/traceChecks.ts', 'src/judging/classify/rules.ts', 'src/reporters/traceStory.ts', 'src/judging/judgeTrial.ts']) {
      expect(readFileSync(path.join(ROOT, file), 'utf8'), file).not.toMatch(/attributes\[/);
    }
  });

  it('docs/traces.md prints the contract tables exactly as src/schema/traceContract.ts defines them', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/traces.md'), 'utf8');
    const between = doc.slice(doc.indexOf('-->', doc.indexOf('<!-- contract:start')) + 4, doc.indexOf('<!-- contract:end -->'));
    expect(between).toBe(contractMarkdown());
  });
});
