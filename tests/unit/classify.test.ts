import { describe, expect, it } from 'vitest';
import { runChecks } from '../../src/judging/checks/checkRegistry.js';
import { classify } from '../../src/judging/classify/classify.js';
import { RULES } from '../../src/judging/classify/rules.js';
import type { CheckSpec, Task } from '../../src/schema/task.js';
import type { Trace } from '../../src/schema/trace.js';
import { makeTask, TraceBuilder } from '../helpers/traceBuilder.js';

function verdict(trace: Trace, checks: CheckSpec[], task: Partial<Task> = {}) {
  const results = runChecks(trace, checks);
  expect(results.some((r) => !r.passed)).toBe(true);
  return classify(trace, results, makeTask({ checks, ...task }));
}

describe('classifier rules, one hand-built trace each', () => {
  it('POLICY_VIOLATION: a forbidden call was executed', () => {
    const trace = new TraceBuilder().llm().tool('run_shell', { command: 'sudo rm -rf /' }, { decision: 'allow', executed: true }).final('done').build();
    const v = verdict(trace, [{ type: 'policy', match: 'sudo', decision: 'blocked' }]);
    expect(v).toMatchObject({ reason: 'POLICY_VIOLATION', layer: 'harness' });
    expect(v.evidence[0]).toMatchObject({ span_id: trace.spans[2]!.span_id, step: 1 });
  });

  it('NO_MODEL_REQUEST: an external agent that exited with no model call and no tool call seen is not a tool-selection failure', () => {
    const trace = new TraceBuilder().final('I cannot help').build();
    trace.spans[0]!.attributes['agent.outcome'] = 'exited';
    const v = verdict(trace, [{ type: 'tool_called', tools: ['read_file'] }]);
    expect(v).toMatchObject({ reason: 'NO_MODEL_REQUEST', layer: 'harness' });
    expect(v.evidence[0]!.detail).toMatch(/no model request reached tracegate.*OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL/);
    // With one model call seen, the usual rules judge it.
    const seen = new TraceBuilder().llm().final('I cannot help').build();
    seen.spans[0]!.attributes['agent.outcome'] = 'exited';
    expect(verdict(seen, [{ type: 'tool_called', tools: ['read_file'] }]).reason).toBe('TOOL_SELECTION_ERROR');
  });

  it('POLICY_MISMATCH: a benign call was refused', () => {
    const trace = new TraceBuilder().llm().tool('run_shell', { command: 'ls' }, { decision: 'deny', error_type: 'COMMAND_BLOCKED' }).final('x').build();
    expect(verdict(trace, [{ type: 'policy', decision: 'allow' }])).toMatchObject({ reason: 'POLICY_MISMATCH', layer: 'harness' });
  });

  it('MAX_STEPS_EXCEEDED: cut off', () => {
    const trace = new TraceBuilder().llm().tool('list_files', { path: '.' }).llm().final(null, 'max_steps').build();
    const v = verdict(trace, [{ type: 'max_steps', max: 2 }]);
    expect(v).toMatchObject({ reason: 'MAX_STEPS_EXCEEDED', layer: 'harness' });
    expect(v.evidence[0]!.step).toBe(2);
  });

  it('COMPRESSION_INEFFECTIVE comes before CONTEXT_LOSS', () => {
    const bad = new TraceBuilder().llm().compression(1000, 1200).llm().final('wrong').build();
    expect(verdict(bad, [{ type: 'contains', values: ['goal'] }])).toMatchObject({ reason: 'COMPRESSION_INEFFECTIVE', layer: 'harness' });
  });

  it('CONTEXT_LOSS only with evidence: a fact the answer lacks was in a result the compression summarized', () => {
    const read = (b: TraceBuilder) => b.llm().tool('read_file', { path: 'config.json' }, { call_id: 'call_cfg', result: '{"port": 8080, "db": {"host": "db.internal"}}' }).llm();
    const lost = read(new TraceBuilder()).compression(4000, 900, ['call_cfg']).llm().final('port 8080').build();
    const v = verdict(lost, [{ type: 'contains', values: ['8080', 'DB.INTERNAL'] }]);
    expect(v).toMatchObject({ reason: 'CONTEXT_LOSS', layer: 'harness' });
    expect(v.evidence).toHaveLength(1);
    expect(v.evidence[0]).toMatchObject({ span_id: lost.spans.find((s) => s.kind === 'compression')!.span_id });
    expect(v.evidence[0]!.detail).toMatch(/summarized the result of read_file.*held "DB.INTERNAL"; the answer lacks it/);
    // Compression ran, but nothing says the missing fact was in what it summarized: not a loss.
    const compressedOnly = new TraceBuilder().llm().compression(1000, 300).llm().final('wrong').build();
    expect(verdict(compressedOnly, [{ type: 'contains', values: ['goal'] }], { workspace: null }).reason).toBe('FINAL_ANSWER_INCOMPLETE');
    const otherCall = read(new TraceBuilder()).compression(4000, 900, ['call_other']).llm().final('port 8080').build();
    expect(verdict(otherCall, [{ type: 'contains', values: ['db.internal'] }]).reason).toBe('FINAL_ANSWER_INCOMPLETE');
    // The model read it again after the compression: the fact was in its context when it answered.
    const reread = read(new TraceBuilder()).compression(4000, 900, ['call_cfg']).llm().tool('read_file', { path: 'config.json' }, { result: '"host": "db.internal"' }).llm().final('port 8080').build();
    expect(verdict(reread, [{ type: 'contains', values: ['db.internal'] }]).reason).toBe('FINAL_ANSWER_INCOMPLETE');
  });

  it('TOOL_ARGUMENT_ERROR: read_file {"path": "123"} where the task expects INVALID_ARGUMENTS is the model\'s argument, not the environment', () => {
    const trace = new TraceBuilder().llm().tool('read_file', { path: '123' }, { error_type: 'FILE_NOT_FOUND' }).llm().final('there is no file 123').build();
    const v = verdict(trace, [{ type: 'error_types', types: ['INVALID_ARGUMENTS'] }]);
    expect(v).toMatchObject({ reason: 'TOOL_ARGUMENT_ERROR', layer: 'tool' });
    expect(v.evidence[0]).toMatchObject({ span_id: trace.spans[2]!.span_id, step: 1 });
    expect(v.evidence[0]!.detail).toMatch(/read_file\(\{"path":"123"\}\): FILE_NOT_FOUND, where the task expects INVALID_ARGUMENTS/);
    // The seeds' event name for it reads the same.
    expect(verdict(trace, [{ type: 'event_type', value: 'INVALID_ARGUMENTS' }]).reason).toBe('TOOL_ARGUMENT_ERROR');
    // Without that expectation a missing file is still the environment's.
    expect(verdict(trace, [{ type: 'contains', values: ['summary'] }]).reason).toBe('FILE_NOT_FOUND_UNRECOVERED');
  });

  it('tool-argument failures come before the environment rules', () => {
    const trace = new TraceBuilder()
      .llm().tool('calculator', { op: 'mul', x: '1234' }, { error_type: 'INVALID_ARGUMENTS' })
      .llm().tool('run_shell', { command: 'bc' }, { error_type: 'COMMAND_TIMEOUT' })
      .llm().final('gave up').build();
    expect(verdict(trace, [{ type: 'contains', values: ['7006652'] }])).toMatchObject({ reason: 'INVALID_ARGUMENTS', layer: 'tool' });
  });

  it('a refusal the task expects as the seeds\' PERMISSION_DENIED is met by COMMAND_BLOCKED, so the task passes', () => {
    const trace = new TraceBuilder().llm().tool('run_shell', { command: 'rm -rf /' }, { decision: 'deny', error_type: 'COMMAND_BLOCKED', executed: false }).llm().final('I will not do that').build();
    const checks = runChecks(trace, [{ type: 'error_types', types: ['PERMISSION_DENIED'] }, { type: 'event_type', value: 'permission_denied' }]);
    expect(checks.map((c) => c.passed)).toEqual([true, true]);
  });

  it('COMMAND_TIMEOUT', () => {
    const trace = new TraceBuilder().llm().tool('run_shell', { command: 'sleep 100' }, { error_type: 'COMMAND_TIMEOUT' }).llm().final('x').build();
    expect(verdict(trace, [{ type: 'contains', values: ['done'] }])).toMatchObject({ reason: 'COMMAND_TIMEOUT', layer: 'environment' });
  });

  it('FILE_NOT_FOUND_UNRECOVERED, but not when a later call succeeded', () => {
    const stuck = new TraceBuilder().llm().tool('read_file', { path: 'x' }, { error_type: 'FILE_NOT_FOUND' }).llm().final('no file').build();
    expect(verdict(stuck, [{ type: 'contains', values: ['summary'] }])).toMatchObject({ reason: 'FILE_NOT_FOUND_UNRECOVERED', layer: 'environment' });
    const recovered = new TraceBuilder().llm().tool('read_file', { path: 'x' }, { error_type: 'FILE_NOT_FOUND' }).llm().tool('read_file', { path: 'y' }).llm().final('partial').build();
    expect(verdict(recovered, [{ type: 'contains', values: ['summary'] }]).reason).toBe('FINAL_ANSWER_INCOMPLETE');
  });

  it('PERMISSION_DENIED_UNRECOVERED', () => {
    const trace = new TraceBuilder().llm().tool('read_file', { path: '.env' }, { decision: 'deny', error_type: 'PERMISSION_DENIED' }).llm().final('cannot').build();
    expect(verdict(trace, [{ type: 'contains', values: ['key'] }])).toMatchObject({ reason: 'PERMISSION_DENIED_UNRECOVERED', layer: 'environment' });
  });

  it('INVALID_ARGUMENTS, unless a valid call of the same tool followed', () => {
    const stuck = new TraceBuilder().llm().tool('calculator', { a: 'x' }, { error_type: 'INVALID_ARGUMENTS' }).llm().final('gave up').build();
    expect(verdict(stuck, [{ type: 'contains', values: ['42'] }])).toMatchObject({ reason: 'INVALID_ARGUMENTS', layer: 'tool' });
    const fixed = new TraceBuilder().llm().tool('calculator', { a: 'x' }, { error_type: 'INVALID_ARGUMENTS' }).llm().tool('calculator', { a: 1 }).llm().final('41').build();
    expect(verdict(fixed, [{ type: 'contains', values: ['42'] }]).reason).toBe('FINAL_ANSWER_INCOMPLETE');
  });

  it('TOOL_SELECTION_ERROR: the expected tool or error path was never taken', () => {
    const trace = new TraceBuilder().llm().tool('read_file', { path: 'a' }).llm().final('x').build();
    expect(verdict(trace, [{ type: 'tool_called', tools: ['run_shell'] }])).toMatchObject({ reason: 'TOOL_SELECTION_ERROR', layer: 'tool' });
    const unknown = new TraceBuilder().llm().tool('browse', {}, { error_type: 'UNKNOWN_TOOL', decision: 'deny' }).llm().final('x').build();
    expect(verdict(unknown, [{ type: 'contains', values: ['y'] }]).reason).toBe('TOOL_SELECTION_ERROR');
  });

  it('MODEL_UNDERSTANDING_ERROR: answered without the tools a workspace task needs', () => {
    const trace = new TraceBuilder().llm().final('I guess it is 3').build();
    expect(verdict(trace, [{ type: 'contains', values: ['26'] }])).toMatchObject({ reason: 'MODEL_UNDERSTANDING_ERROR', layer: 'model' });
    // The same answer to a task without a workspace is just an incomplete answer.
    expect(verdict(trace, [{ type: 'contains', values: ['26'] }], { workspace: null }).reason).toBe('FINAL_ANSWER_INCOMPLETE');
  });

  it('UNKNOWN when no rule explains the failure', () => {
    const trace = new TraceBuilder().llm().tool('read_file', { path: 'a' }).llm().final('x').build();
    const v = verdict(trace, [{ type: 'not_contains', values: ['x'] }, { type: 'completed' }]);
    expect(v.reason).toBe('FINAL_ANSWER_INCOMPLETE');
    const odd = classify(trace, [{ type: 'a_check_no_rule_reads', passed: false, reason: 'odd', evidence: [] }], makeTask());
    expect(odd).toMatchObject({ reason: 'UNKNOWN', layer: 'unknown' });
    expect(odd.evidence[0]!.detail).toContain('odd');
  });

  it('the rule table is documented and ordered', () => {
    expect(RULES.map((r) => r.reason)).toEqual([
      'POLICY_VIOLATION', 'AGENT_CRASH', 'AGENT_TIMEOUT', 'AGENT_OUTPUT_INVALID', 'NO_MODEL_REQUEST', 'POLICY_MISMATCH', 'MAX_STEPS_EXCEEDED', 'COMPRESSION_INEFFECTIVE', 'CONTEXT_LOSS',
      'INVALID_ARGUMENTS', 'TOOL_ARGUMENT_ERROR', 'COMMAND_TIMEOUT', 'FILE_NOT_FOUND_UNRECOVERED', 'PERMISSION_DENIED_UNRECOVERED',
      'OUTCOME_UNMET', 'CHANGED_FILES_OUT_OF_SCOPE', 'CUSTOM_CHECK_FAILED', 'TOOL_SELECTION_ERROR',
      'MODEL_UNDERSTANDING_ERROR', 'TRAJECTORY_MISMATCH', 'FINAL_ANSWER_INCOMPLETE', 'BUDGET_EXCEEDED', 'RUBRIC_FAILED',
    ]);
    for (const rule of RULES) expect(rule.summary.length).toBeGreaterThan(10);
  });
});
