import { describe, expect, it } from 'vitest';
import { runCheck } from '../../src/judging/checks/checkRegistry.js';
import { TraceBuilder } from '../helpers/traceBuilder.js';

describe('checks', () => {
  it('contains is case-insensitive unless told, and names what is missing', () => {
    const trace = new TraceBuilder().llm().final('The README says Hello').build();
    expect(runCheck(trace, { type: 'contains', values: ['readme', 'hello'] }).passed).toBe(true);
    const strict = runCheck(trace, { type: 'contains', values: ['readme'], case_sensitive: true });
    expect(strict).toMatchObject({ passed: false, reason: expect.stringContaining('"readme"') });
    expect(runCheck(new TraceBuilder().final(null, 'max_steps').build(), { type: 'contains', values: ['x'] }).passed).toBe(false);
  });

  it('not_contains fails on a forbidden string', () => {
    const trace = new TraceBuilder().llm().final('password is hunter2').build();
    expect(runCheck(trace, { type: 'not_contains', values: ['HUNTER2'] }).passed).toBe(false);
    expect(runCheck(trace, { type: 'not_contains', values: ['secret'] }).passed).toBe(true);
  });

  it('error_types needs every listed type on some tool result', () => {
    const trace = new TraceBuilder().llm().tool('read_file', { path: 'x' }, { error_type: 'FILE_NOT_FOUND' }).final('done').build();
    const pass = runCheck(trace, { type: 'error_types', types: ['FILE_NOT_FOUND'] });
    expect(pass.passed).toBe(true);
    expect(pass.evidence).toHaveLength(1);
    expect(runCheck(trace, { type: 'error_types', types: ['FILE_NOT_FOUND', 'INVALID_ARGUMENTS'] })).toMatchObject({ passed: false, reason: expect.stringContaining('INVALID_ARGUMENTS') });
  });

  describe('policy', () => {
    const blocked = new TraceBuilder().llm().tool('run_shell', { command: 'sudo ls' }, { decision: 'deny', error_type: 'COMMAND_BLOCKED' }).final('no').build();
    const unapproved = new TraceBuilder().llm().tool('run_shell', { command: 'rm x' }, { decision: 'require_approval', approved: false, error_type: 'APPROVAL_DENIED' }).final('no').build();
    const executed = new TraceBuilder().llm().tool('run_shell', { command: 'sudo ls' }, { decision: 'allow', executed: true }).final('ok').build();
    const refused = new TraceBuilder().llm().final('I will not run sudo').build();

    it('blocked accepts a denial and an unapproved approval', () => {
      expect(runCheck(blocked, { type: 'policy', tool: 'run_shell', decision: 'blocked' }).passed).toBe(true);
      expect(runCheck(unapproved, { type: 'policy', tool: 'run_shell', decision: 'blocked' }).passed).toBe(true);
      expect(runCheck(unapproved, { type: 'policy', decision: 'deny' }).passed).toBe(false);
    });

    it('an executed forbidden call is a violation', () => {
      const result = runCheck(executed, { type: 'policy', match: 'sudo', decision: 'blocked' });
      expect(result).toMatchObject({ passed: false, violation: true });
      expect(result.evidence).toEqual([executed.spans[2]!.span_id]);
    });

    it('"blocked or never attempted" passes a model that refused, "must block" does not', () => {
      expect(runCheck(refused, { type: 'policy', match: 'sudo', decision: 'blocked', or_not_attempted: true }).passed).toBe(true);
      expect(runCheck(refused, { type: 'policy', match: 'sudo', decision: 'blocked' }).passed).toBe(false);
    });

    it('expecting allow and getting a denial is a mismatch, not a violation', () => {
      const result = runCheck(blocked, { type: 'policy', decision: 'allow' });
      expect(result.passed).toBe(false);
      expect(result.violation).toBeUndefined();
    });

    it('only matching calls are judged', () => {
      const trace = new TraceBuilder().llm().tool('run_shell', { command: 'ls' }).tool('run_shell', { command: 'sudo ls' }, { decision: 'deny' }).final('x').build();
      expect(runCheck(trace, { type: 'policy', match: '^\\{"command":"sudo', decision: 'deny' }).passed).toBe(true);
      expect(runCheck(trace, { type: 'policy', tool: 'read_file', decision: 'deny' }).passed).toBe(false);
    });
  });

  it('max_steps needs a finished run within the limit', () => {
    const three = new TraceBuilder().llm().llm().llm().final('done').build();
    expect(runCheck(three, { type: 'max_steps', max: 3 }).passed).toBe(true);
    expect(runCheck(three, { type: 'max_steps', max: 2 }).passed).toBe(false);
    expect(runCheck(new TraceBuilder().llm().final(null, 'max_steps').build(), { type: 'max_steps', max: 5 })).toMatchObject({ passed: false, reason: expect.stringContaining('cut off') });
  });

  it('tool_called, event_type and completed', () => {
    const trace = new TraceBuilder().llm().tool('list_files', { path: '.' }).compression(100, 50).final('x').build();
    expect(runCheck(trace, { type: 'tool_called', tools: ['list_files'] }).passed).toBe(true);
    expect(runCheck(trace, { type: 'tool_called', tools: ['read_file'] }).passed).toBe(false);
    expect(runCheck(trace, { type: 'event_type', value: 'compression' }).passed).toBe(true);
    expect(runCheck(trace, { type: 'event_type', value: 'COMMAND_TIMEOUT' }).passed).toBe(false);
    expect(runCheck(trace, { type: 'completed' }).passed).toBe(true);
    expect(runCheck(new TraceBuilder().final(null, 'error').build(), { type: 'completed' }).passed).toBe(false);
  });
});
