import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/judging/checks/checkRegistry.js';
import { answerNumber } from '../../src/judging/checks/answerPatternChecks.js';
import { DEFAULT_PRICE_TABLE, priceOf, traceCost } from '../../src/judging/checks/priceTable.js';
import { classify } from '../../src/judging/classify/classify.js';
import { CheckSpecSchema, type CheckSpec } from '../../src/schema/task.js';
import type { Trace } from '../../src/schema/trace.js';
import { makeTask, TraceBuilder } from '../helpers/traceBuilder.js';

/** Parses the spec as a suite line's check would be, then runs it. */
const judge = (trace: Trace, spec: object) => runCheck(trace, CheckSpecSchema.parse(spec) as CheckSpec);
const passes = (trace: Trace, spec: object) => judge(trace, spec).passed;

const calls = (...names: string[]) => {
  const b = new TraceBuilder().llm();
  for (const n of names) b.tool(n, {});
  return b.final('done').build();
};

describe('trajectory checks', () => {
  it('tool_sequence: exact, in_order (first calls), subsequence and any_order differ as documented', () => {
    const t = calls('list_files', 'read_file', 'list_files', 'write_file');
    expect(passes(t, { type: 'tool_sequence', tools: ['list_files', 'read_file', 'list_files', 'write_file'], mode: 'exact' })).toBe(true);
    expect(passes(t, { type: 'tool_sequence', tools: ['list_files', 'read_file', 'write_file'], mode: 'exact' })).toBe(false);
    expect(passes(t, { type: 'tool_sequence', tools: ['list_files', 'write_file'] })).toBe(true);
    expect(passes(t, { type: 'tool_sequence', tools: ['read_file', 'list_files'], mode: 'in_order' })).toBe(false);
    expect(passes(t, { type: 'tool_sequence', tools: ['read_file', 'list_files'], mode: 'subsequence' })).toBe(true);
    expect(passes(t, { type: 'tool_sequence', tools: ['write_file', 'read_file'], mode: 'subsequence' })).toBe(false);
    expect(passes(t, { type: 'tool_sequence', tools: ['write_file', 'list_files', 'list_files'], mode: 'any_order' })).toBe(true);
    expect(passes(t, { type: 'tool_sequence', tools: ['read_file', 'read_file'], mode: 'any_order' })).toBe(false);
    const r = judge(t, { type: 'tool_sequence', tools: ['run_shell'] });
    expect(r.reason).toContain('never called run_shell');
    expect(r.reason).toContain('list_files → read_file');
  });

  it('tool_args: a JSON subset, per-field type and pattern, a JSON Schema; first / any / every', () => {
    const t = new TraceBuilder().llm().tool('read_file', { path: 123 }).tool('read_file', { path: 'README.md', limit: 5 }).final('ok').build();
    expect(passes(t, { type: 'tool_args', tool: 'read_file', match: { path: 'README.md' } })).toBe(true);
    expect(passes(t, { type: 'tool_args', tool: 'read_file', match: { path: 'README.md' }, call: 'first' })).toBe(false);
    expect(passes(t, { type: 'tool_args', tool: 'read_file', fields: { path: { type: 'string' } }, call: 'every' })).toBe(false);
    const every = judge(t, { type: 'tool_args', tool: 'read_file', fields: { path: { type: 'string' } }, call: 'every' });
    expect(every.reason).toContain('argument path is number 123, expected string');
    expect(every.evidence).toEqual(['s3']);
    expect(passes(t, { type: 'tool_args', tool: 'read_file', fields: { path: { pattern: '^READ.*\\.md$' } } })).toBe(true);
    expect(passes(t, { type: 'tool_args', tool: 'read_file', fields: { limit: { type: 'integer' } } })).toBe(true);
    const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    expect(passes(t, { type: 'tool_args', tool: 'read_file', schema, call: 'first' })).toBe(false);
    expect(judge(t, { type: 'tool_args', tool: 'read_file', schema, call: 'first' }).reason).toContain('at /path: must be string');
    expect(passes(t, { type: 'tool_args', tool: 'read_file', schema, call: 'any' })).toBe(true);
    expect(judge(t, { type: 'tool_args', tool: 'write_file', match: {} }).reason).toBe('write_file was never called');
  });

  it('tool_not_called, tool_count and no_tool_errors', () => {
    const t = new TraceBuilder().llm().tool('read_file', { path: 'x' }, { error_type: 'FILE_NOT_FOUND' }).tool('read_file', { path: 'README.md' }).tool('run_shell', { command: 'ls' }).final('ok').build();
    expect(passes(t, { type: 'tool_not_called', tools: ['write_file'] })).toBe(true);
    expect(judge(t, { type: 'tool_not_called', tools: ['run_shell', 'write_file'] })).toMatchObject({ passed: false, evidence: ['s5'] });
    expect(passes(t, { type: 'tool_count', tool: 'read_file', min: 1, max: 2 })).toBe(true);
    expect(judge(t, { type: 'tool_count', max: 2 }).reason).toBe('3 tool calls, expected at most 2');
    expect(passes(t, { type: 'tool_count', tool: 'write_file', min: 1 })).toBe(false);
    expect(judge(t, { type: 'no_tool_errors' })).toMatchObject({ passed: false, evidence: ['s3'] });
    expect(passes(t, { type: 'no_tool_errors', except: ['FILE_NOT_FOUND'] })).toBe(true);
  });
});

describe('answer checks', () => {
  const answer = (text: string | null, exit: Trace['final_answer']['exit_reason'] = 'completed') => new TraceBuilder().llm().final(text, exit).build();

  it('answer_matches runs RE2 with flags', () => {
    expect(passes(answer('Port: 8080\nHost: db.internal'), { type: 'answer_matches', pattern: '^host: db\\.internal$', flags: 'im' })).toBe(true);
    expect(passes(answer('Port: 8080\nHost: db.internal'), { type: 'answer_matches', pattern: '^host: db\\.internal$' })).toBe(false);
    expect(passes(answer(null), { type: 'answer_matches', pattern: 'x' })).toBe(false);
  });

  it('answer_equals: normalized folds case and whitespace, exact does not', () => {
    expect(passes(answer('  Version 1.4.2\n'), { type: 'answer_equals', value: 'version   1.4.2' })).toBe(true);
    expect(passes(answer('  Version 1.4.2\n'), { type: 'answer_equals', value: 'version 1.4.2', mode: 'exact' })).toBe(false);
    expect(passes(answer('Version 1.4.2'), { type: 'answer_equals', value: 'Version 1.4.2', mode: 'exact' })).toBe(true);
  });

  it('answer_number reads the whole answer or its last number; absolute and relative tolerance', () => {
    expect(answerNumber('7,006,652')).toBe(7006652);
    expect(answerNumber('1234 × 5678 = 7006652.')).toBe(7006652);
    expect(answerNumber('no digits')).toBeNull();
    expect(passes(answer('The result is 3.14159'), { type: 'answer_number', value: 3.14, tolerance: 0.01 })).toBe(true);
    expect(passes(answer('The result is 3.2'), { type: 'answer_number', value: 3.14, tolerance: 0.01 })).toBe(false);
    expect(passes(answer('about 1050'), { type: 'answer_number', value: 1000, tolerance: 0.05, relative: true })).toBe(true);
    expect(judge(answer('none'), { type: 'answer_number', value: 1 }).reason).toContain('has no number');
  });

  it('answer_json parses the answer (or its one fenced block) and checks a JSON Schema', () => {
    const schema = { type: 'object', properties: { port: { type: 'integer' } }, required: ['port'] };
    expect(passes(answer('{"port": 8080}'), { type: 'answer_json', schema })).toBe(true);
    expect(passes(answer('```json\n{"port": 8080}\n```'), { type: 'answer_json', schema })).toBe(true);
    expect(judge(answer('{"port": "8080"}'), { type: 'answer_json', schema }).reason).toContain('at /port: must be integer');
    expect(judge(answer('port is 8080'), { type: 'answer_json' }).reason).toContain('not JSON');
  });

  it('exit_reason equals one reason or any of a list', () => {
    expect(passes(answer('x', 'max_steps'), { type: 'exit_reason', equals: 'max_steps' })).toBe(true);
    expect(passes(answer('x', 'completed'), { type: 'exit_reason', equals: ['max_steps', 'refused'] })).toBe(false);
  });
});

describe('budget and cost', () => {
  const priced = (model: string) => {
    const t = new TraceBuilder().llm().tool('read_file', {}).llm().final('ok').build();
    t.model.model = model;
    t.spans[1]!.attributes['gen_ai.usage.input_tokens'] = 1_000_000;
    t.spans[1]!.attributes['gen_ai.usage.output_tokens'] = 100_000;
    t.usage = { input_tokens: 1_000_000, output_tokens: 100_000, total_tokens: 1_100_000 };
    return t;
  };

  it('prices a model by name or its longest prefix, vendor prefix dropped; unknown models have no cost', () => {
    expect(priceOf('gpt-4o-mini-2024-07-18')?.name).toBe('gpt-4o-mini');
    expect(priceOf('openai/gpt-4o')?.name).toBe('gpt-4o');
    expect(priceOf('my-local-model')).toBeNull();
    const cost = traceCost(priced('gpt-4o'))!;
    expect(cost.usd).toBeCloseTo(2.5 + 1, 10);
    expect(cost.as_of).toBe(DEFAULT_PRICE_TABLE.as_of);
    expect(traceCost(priced('demo-script-a'))).toBeNull();
  });

  it('checks every limit it names and lists each one exceeded', () => {
    const t = priced('gpt-4o');
    expect(passes(t, { type: 'budget', max_tokens: 2_000_000, max_tool_calls: 1, max_steps: 2, max_duration_ms: 5000, max_cost_usd: 4 })).toBe(true);
    const r = judge(t, { type: 'budget', max_tokens: 1000, max_cost_usd: 1, max_steps: 1 });
    expect(r.passed).toBe(false);
    expect(r.reason).toContain('tokens 1100000 of 1000');
    expect(r.reason).toContain('cost $3.5 of $1');
    expect(r.reason).toContain('steps 2 of 1');
    expect(judge(priced('demo-script-a'), { type: 'budget', max_cost_usd: 1 }).reason).toContain('not in the price table');
  });
});

describe('the classifier names each family', () => {
  it('trajectory -> TRAJECTORY_MISMATCH, answer -> FINAL_ANSWER_INCOMPLETE, budget -> BUDGET_EXCEEDED (each with evidence)', () => {
    const t = new TraceBuilder().llm().tool('run_shell', { command: 'rm -rf build' }).final('done').build();
    const trajectory = [judge(t, { type: 'tool_not_called', tools: ['run_shell'] })];
    const c1 = classify(t, trajectory, makeTask({ checks: [] }));
    expect(c1).toMatchObject({ reason: 'TRAJECTORY_MISMATCH', layer: 'model' });
    expect(c1.evidence[0]).toMatchObject({ span_id: 's3', step: 1 });
    const c2 = classify(t, [judge(t, { type: 'answer_equals', value: 'finished' })], makeTask());
    expect(c2).toMatchObject({ reason: 'FINAL_ANSWER_INCOMPLETE', layer: 'model' });
    expect(c2.evidence[0]!.detail).toContain('is not "finished"');
    const c3 = classify(t, [judge(t, { type: 'budget', max_tool_calls: 0 })], makeTask());
    expect(c3).toMatchObject({ reason: 'BUDGET_EXCEEDED', layer: 'model' });
    expect(c3.evidence[0]!.detail).toContain('tool calls 1 of 0');
  });
});
