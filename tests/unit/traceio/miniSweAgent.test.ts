import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { llmSpans, toolAttr, toolSpans } from '../../../src/schema/trace.js';
import { importRow } from '../../../src/traceio/importSummary.js';
import { parseTraces } from '../../../src/traceio/registry.js';
import { FIXTURES } from '../../helpers/samples.js';

const fixture = (name: string) => parseTraces(readFileSync(path.join(FIXTURES, name)), name);
const commands = (t: Parameters<typeof toolSpans>[0]) => toolSpans(t).map((s) => JSON.parse(toolAttr(s).arguments ?? '{}').command as string);

describe('mini-swe-agent 2 trajectories', () => {
  it('text actions: a reply with two bash blocks rejected by a FormatError ran nothing; a timeout is COMMAND_TIMEOUT; tokens and times from extra', () => {
    const [t] = fixture('mini-swe-agent-v2-text.traj.json').traces;
    const calls = toolSpans(t!).map(toolAttr);
    expect(calls.map((c) => [c.ok, c.errorType])).toEqual([
      [true, null],
      [false, 'INVALID_ARGUMENTS'],
      [false, 'INVALID_ARGUMENTS'],
      [false, 'COMMAND_TIMEOUT'],
      [true, null],
    ]);
    expect(toolSpans(t!)[1]!.attributes['executed']).toBe(false);
    expect(calls[1]!.message).toBe('Expected exactly 1 action, found 2.');
    expect(t!.usage).toEqual({ input_tokens: 3600, output_tokens: 240, total_tokens: 3840 });
    expect(llmSpans(t!)[0]!.end).toBe('2024-01-23T08:53:20.000Z'); // extra.timestamp 1706000000
    expect(toolSpans(t!)[0]!.end).toBe('2024-01-23T08:53:21.000Z');
    expect(t!.final_answer).toEqual({ text: '2\n', exit_reason: 'completed' });
  });

  it('tool calls: an unknown tool rejected with no tool message is a failed call, not a success; TimeoutExpired → COMMAND_TIMEOUT', () => {
    const imported = fixture('mini-swe-agent-v2-toolcall.traj.json');
    const [t] = imported.traces;
    const calls = toolSpans(t!).map(toolAttr);
    expect(calls.map((c) => c.name)).toEqual(['bash', 'bash', 'python', 'bash', 'bash']);
    expect(calls[1]).toMatchObject({ ok: false, errorType: 'COMMAND_TIMEOUT' });
    expect(calls[2]).toMatchObject({ ok: false, errorType: 'UNKNOWN_TOOL' });
    expect(calls[3]).toMatchObject({ ok: false, errorType: 'COMMAND_FAILED', result: 'cat: nope.txt: No such file or directory\n' });
    expect(calls[4]).toMatchObject({ ok: true, result: 'diff --git a/utils.py b/utils.py\n+fixed\n' });
    expect(importRow(imported)).toMatchObject({ model_calls: 5, tool_calls: 5, errors: 3 });
  });

  it('the XML action regex: commands from extra.actions; LimitsExceeded with an empty submission has no final answer', () => {
    const [t] = fixture('mini-swe-agent-v2-xml-limits.traj.json').traces;
    expect(commands(t!)).toEqual(['ls', 'sleep 100']);
    expect(t!.final_answer).toEqual({ text: null, exit_reason: 'max_steps' });
  });

  it('a call that no message answered is not counted as a success', () => {
    const traj = { info: { exit_status: 'LimitsExceeded', submission: '' }, trajectory_format: 'mini-swe-agent-1.1', messages: [{ role: 'assistant', content: 'x', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] }] };
    const [t] = parseTraces(strToU8(JSON.stringify(traj)), 'cut.traj.json').traces;
    expect(toolAttr(toolSpans(t!)[0]!)).toMatchObject({ ok: false, result: null, errorType: null });
  });

  it('version 1 text replies: two bash blocks answered by the format error message ran nothing', () => {
    const messages = [
      { role: 'system', content: 's' },
      { role: 'assistant', content: '```bash\nls\n```\n```bash\nrm -rf x\n```' },
      { role: 'user', content: 'Please always provide EXACTLY ONE action in triple backticks, found 2 actions.' },
      { role: 'assistant', content: '```bash\nls\n```' },
      { role: 'user', content: '<returncode>0</returncode>\n<output>\na\n</output>' },
    ];
    const [t] = parseTraces(strToU8(JSON.stringify(messages)), 'v1.traj.json').traces;
    expect(toolSpans(t!).map((s) => [toolAttr(s).ok, toolAttr(s).errorType, toolAttr(s).result])).toEqual([
      [false, 'INVALID_ARGUMENTS', null],
      [false, 'INVALID_ARGUMENTS', null],
      [true, null, 'a'],
    ]);
  });

  it('version 2 keeps a rejected reply only in the FormatError message: a model call with its tokens, its calls failed', () => {
    const response = { choices: [{ message: { role: 'assistant', content: 'hm', tool_calls: [{ id: 'c9', type: 'function', function: { name: 'python', arguments: '{}' } }] } }], usage: { prompt_tokens: 5, completion_tokens: 2 } };
    const traj = {
      info: { exit_status: 'RepeatedFormatError', submission: '' },
      trajectory_format: 'mini-swe-agent-1.1',
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'task' },
        { role: 'user', content: "Tool call error:\n\n<error>\nUnknown tool 'python'.\n</error>", extra: { interrupt_type: 'FormatError', response, cost: 0.01 } },
        { role: 'exit', content: 'RepeatedFormatError', extra: { exit_status: 'RepeatedFormatError', submission: '' } },
      ],
    };
    const [t] = parseTraces(strToU8(JSON.stringify(traj)), 'fe.traj.json').traces;
    expect(llmSpans(t!)).toHaveLength(1);
    expect(t!.usage).toMatchObject({ input_tokens: 5, output_tokens: 2 });
    expect(toolSpans(t!).map(toolAttr)).toMatchObject([{ name: 'python', ok: false, errorType: 'UNKNOWN_TOOL' }]);
    expect(t!.final_answer).toEqual({ text: null, exit_reason: 'error' });
  });
});
