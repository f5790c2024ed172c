import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { llmSpans, toolAttr, toolSpans } from '../../../src/schema/trace.js';
import { importRow } from '../../../src/traceio/importSummary.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { FIXTURES } from '../../helpers/samples.js';

const fixture = (name: string) => parseTraces(readFileSync(path.join(FIXTURES, name)), name);
const commands = (t: Parameters<typeof toolSpans>[0]) => toolSpans(t).map((s) => JSON.parse(toolAttr(s).arguments ?? '{}').command as string);

describe('mini-swe-agent 2 trajectories', () => {
  it('text actions: a reply with two bash blocks rejected by a FormatError is a failed model turn, no tool call; a timeout is COMMAND_TIMEOUT; tokens and times from extra', () => {
    const [t] = fixture('mini-swe-agent-v2-text.traj.json').traces;
    const calls = toolSpans(t!).map(toolAttr);
    expect(calls.map((c) => [c.ok, c.errorType])).toEqual([
      [true, null],
      [false, 'COMMAND_TIMEOUT'],
      [true, null],
    ]);
    const rejected = llmSpans(t!)[1]!;
    expect(rejected.status).toBe('error');
    expect(rejected.attributes).toMatchObject({ 'mini_swe_agent.format_error': true, 'mini_swe_agent.rejected_actions': 2, 'error.type': 'INVALID_ARGUMENTS' });
    expect(llmSpans(t!)).toHaveLength(4);
    expect(t!.usage).toEqual({ input_tokens: 3600, output_tokens: 240, total_tokens: 3840 });
    expect(llmSpans(t!)[0]!.end).toBe('2024-01-23T08:53:20.000Z'); // extra.timestamp 1706000000
    expect(toolSpans(t!)[0]!.end).toBe('2024-01-23T08:53:21.000Z');
    expect(t!.final_answer).toEqual({ text: '2\n', exit_reason: 'completed' });
  });

  it('tool calls: an unknown tool rejected with no tool message is a failed model turn, never run; TimeoutExpired → COMMAND_TIMEOUT', () => {
    const imported = fixture('mini-swe-agent-v2-toolcall.traj.json');
    const [t] = imported.traces;
    const calls = toolSpans(t!).map(toolAttr);
    expect(calls.map((c) => c.name)).toEqual(['bash', 'bash', 'bash', 'bash']);
    expect(calls[1]).toMatchObject({ ok: false, errorType: 'COMMAND_TIMEOUT' });
    expect(llmSpans(t!)[2]!.attributes).toMatchObject({ 'error.type': 'UNKNOWN_TOOL', 'mini_swe_agent.rejected_tools': ['python'] });
    expect(calls[2]).toMatchObject({ ok: false, errorType: 'COMMAND_FAILED', result: 'cat: nope.txt: No such file or directory\n' });
    expect(calls[3]).toMatchObject({ ok: true, result: 'diff --git a/utils.py b/utils.py\n+fixed\n' });
    expect(importRow(imported)).toMatchObject({ model_calls: 5, tool_calls: 4, errors: 2 });
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

  it('version 1 text replies: two bash blocks answered by the format error message ran nothing: a failed model turn', () => {
    const messages = [
      { role: 'system', content: 's' },
      { role: 'assistant', content: '```bash\nls\n```\n```bash\nrm -rf x\n```' },
      { role: 'user', content: 'Please always provide EXACTLY ONE action in triple backticks, found 2 actions.' },
      { role: 'assistant', content: '```bash\nls\n```' },
      { role: 'user', content: '<returncode>0</returncode>\n<output>\na\n</output>' },
    ];
    const [t] = parseTraces(strToU8(JSON.stringify(messages)), 'v1.traj.json').traces;
    expect(toolSpans(t!).map((s) => [toolAttr(s).ok, toolAttr(s).errorType, toolAttr(s).result])).toEqual([[true, null, 'a']]);
    expect(llmSpans(t!).map((s) => s.status)).toEqual(['error', 'ok']);
  });

  it('version 2 keeps a rejected reply only in the FormatError message: a failed model call with its tokens, no tool call', () => {
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
    expect(toolSpans(t!)).toHaveLength(0);
    expect(llmSpans(t!)[0]!).toMatchObject({ status: 'error', attributes: { 'error.type': 'UNKNOWN_TOOL', 'mini_swe_agent.rejected_tools': ['python'] } });
    expect(t!.final_answer).toEqual({ text: null, exit_reason: 'error' });
  });

  it('version 2 text mode: a FormatError with only extra.model_response (no assistant message, no response) is still a model call', () => {
    const traj = {
      info: { exit_status: 'Submitted', submission: 'ok' },
      trajectory_format: 'mini-swe-agent-1.1',
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'task' },
        { role: 'user', content: 'Format error:\n\n<error>\nExpected exactly 1 action, found 0.\n</error>', extra: { interrupt_type: 'FormatError', n_actions: 0, model_response: 'I think…' } },
        { role: 'assistant', content: '```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```', extra: { actions: [{ command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' }] } },
        { role: 'exit', content: 'ok', extra: { exit_status: 'Submitted', submission: 'ok' } },
      ],
    };
    const [t] = parseTraces(strToU8(JSON.stringify(traj)), 'fe0.traj.json').traces;
    expect(llmSpans(t!).map((s) => [s.status, s.attributes['llm.content_preview'] ?? null])).toEqual([
      ['error', 'I think…'],
      ['ok', '```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```'],
    ]);
    expect(toolSpans(t!)).toHaveLength(1);
  });
});
