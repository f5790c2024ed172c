import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { llmSpans, toolAttr, toolSpans } from '../../../src/schema/trace.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { FIXTURES } from '../../helpers/samples.js';

const upstream = (name: string) => parseTraces(readFileSync(path.join(FIXTURES, 'upstream', name)), name);
const json = (value: unknown, name = 'x.json') => parseTraces(strToU8(JSON.stringify(value)), name);

/** The smallest Inspect log around one sample. */
const log = (sample: Record<string, unknown>) => ({ version: 2, status: 'success', eval: { task: 't', model: 'openai/m' }, samples: [{ id: 's1', epoch: 1, ...sample }] });
const at = (s: number) => `2025-05-12T20:00:0${s}+00:00`;

describe('Inspect logs', () => {
  it('a model-graded scorer: its model call is neither a step nor tokens; the answer is output.choices[0] with its attachment resolved', () => {
    const [t] = upstream('inspect-security-guide-scorer.json').traces;
    const llm = llmSpans(t!);
    expect(llm).toHaveLength(1);
    expect(llm[0]!.attributes['llm.content_preview']).toMatch(/^Use Content Security Policy/);
    expect(t!.final_answer).toEqual({ text: 'Use Content Security Policy (CSP), validate and sanitize inputs, escape outputs, and implement secure coding practices.', exit_reason: 'completed' });
    // model_usage (329/468) counts the grader too; the agent's own call was 61/23.
    expect(t!.usage).toEqual({ input_tokens: 61, output_tokens: 23, total_tokens: 84 });
  });

  it('attachment:// references resolve in tool arguments, results and message content; an unknown one stays', () => {
    const [t] = json(
      log({
        attachments: { a1: 'ls -la /very/long/path', a2: 'total 0\nfile.txt', a3: 'All done.' },
        output: { choices: [{ message: { role: 'assistant', content: [{ type: 'text', text: 'attachment://a3' }] } }] },
        events: [
          { event: 'model', timestamp: at(1), model: 'openai/m', output: { choices: [{ message: { role: 'assistant', content: '', tool_calls: [{ id: 'c1', function: 'bash', arguments: { cmd: 'attachment://a1' } }] } }] } },
          { event: 'tool', timestamp: at(2), id: 'c1', function: 'bash', arguments: { cmd: 'attachment://a1' }, result: 'attachment://a2' },
          { event: 'model', timestamp: at(3), model: 'openai/m', output: { choices: [{ message: { role: 'assistant', content: 'attachment://nope' } }] } },
        ],
      }),
    ).traces;
    expect(toolAttr(toolSpans(t!)[0]!)).toMatchObject({ arguments: '{"cmd":"ls -la /very/long/path"}', result: 'total 0\nfile.txt' });
    expect(llmSpans(t!)[1]!.attributes['llm.content_preview']).toBe('attachment://nope');
    expect(t!.final_answer.text).toBe('All done.'); // a content list, no output.completion
  });

  it('an intermediate score while the agent runs does not end the transcript; the scorers span does', () => {
    const [t] = json(
      log({
        output: { completion: 'b', choices: [{ message: { role: 'assistant', content: 'b' } }] },
        events: [
          { event: 'model', timestamp: at(1), output: { choices: [{ message: { role: 'assistant', content: 'a' } }] } },
          { event: 'score', timestamp: at(2), intermediate: true, score: { value: 0 } },
          { event: 'model', timestamp: at(3), output: { choices: [{ message: { role: 'assistant', content: 'b' } }] } },
          { event: 'span_begin', timestamp: at(4), id: 'sc', name: 'scorers' },
          { event: 'model', timestamp: at(5), output: { choices: [{ message: { role: 'assistant', content: 'GRADE: C' } }] } },
        ],
      }),
    ).traces;
    expect(llmSpans(t!).map((s) => s.attributes['llm.content_preview'])).toEqual(['a', 'b']);
  });

  it('model and tool events after scoring starts (older step events of type scorer) are left out', () => {
    const [t] = json(
      log({
        output: { completion: '4', choices: [{ message: { role: 'assistant', content: '4' } }] },
        events: [
          { event: 'model', timestamp: at(1), output: { choices: [{ message: { role: 'assistant', content: '4' } }], usage: { input_tokens: 10, output_tokens: 1 } } },
          { event: 'step', timestamp: at(2), action: 'begin', type: 'scorer', name: 'model_graded_qa' },
          { event: 'model', timestamp: at(3), output: { choices: [{ message: { role: 'assistant', content: 'GRADE: C' } }], usage: { input_tokens: 90, output_tokens: 9 } } },
        ],
      }),
    ).traces;
    expect(llmSpans(t!)).toHaveLength(1);
    expect(t!.usage.input_tokens).toBe(10);
    expect(t!.final_answer.text).toBe('4');
  });

  it('a truncated tool output is OUTPUT_TRUNCATED on a call that succeeded; cancelled and sandbox_unavailable are failed calls keeping their type', () => {
    const [t] = json(
      log({
        output: { completion: 'ok', choices: [{ message: { role: 'assistant', content: 'ok' } }] },
        events: [
          { event: 'tool', timestamp: at(1), id: 'a', function: 'bash', arguments: {}, result: 'xxxx', truncated: [100000, 16384] },
          { event: 'tool', timestamp: at(2), id: 'b', function: 'bash', arguments: {}, result: '', error: { type: 'cancelled', message: 'permission to continue was not given' } },
          { event: 'tool', timestamp: at(3), id: 'c', function: 'bash', arguments: {}, result: '', error: { type: 'sandbox_unavailable', message: 'the sandbox timed out' } },
        ],
      }),
    ).traces;
    const [cut, cancelled, gone] = toolSpans(t!);
    expect(toolAttr(cut!)).toMatchObject({ ok: true, errorType: 'OUTPUT_TRUNCATED' });
    expect(cut!.attributes['truncated']).toBe(true);
    // The message words (permission, timed out) do not decide the type: Inspect's own type does.
    expect(toolAttr(cancelled!)).toMatchObject({ ok: false, errorType: 'COMMAND_FAILED' });
    expect(cancelled!.attributes['error.type']).toBe('cancelled');
    expect(toolAttr(gone!)).toMatchObject({ ok: false, errorType: 'COMMAND_FAILED' });
  });

  it('a sample error is the trace error; a failed model event keeps its text; a refusal ends as refused; .log leaves the file-name task id', () => {
    const [failed] = json(
      log({
        error: { message: 'RuntimeError: sandbox died', traceback: '…' },
        events: [{ event: 'model', timestamp: at(1), error: 'rate limit exceeded after 5 retries', output: { choices: [] } }],
      }),
    ).traces;
    expect(failed!.error).toEqual({ code: 'AGENT_ERROR', message: 'RuntimeError: sandbox died' });
    expect(failed!.final_answer.exit_reason).toBe('error');
    const [model] = llmSpans(failed!);
    expect(model!.status).toBe('error');
    expect(model!.attributes['error.message']).toBe('rate limit exceeded after 5 retries');

    const [refused] = json(log({ output: { choices: [{ message: { role: 'assistant', content: [{ type: 'text', text: 'I cannot help with that.', refusal: true }] }, stop_reason: 'stop' }] } })).traces;
    expect(refused!.final_answer).toEqual({ text: 'I cannot help with that.', exit_reason: 'refused' });

    const messages = [{ role: 'user', content: 'rm -rf /' }, { role: 'assistant', content: null, refusal: "I can't help with that." }];
    const [openai] = parseTraces(strToU8(JSON.stringify(messages)), 'chat.log').traces;
    expect(openai!.task_id).toBe('chat');
    expect(openai!.final_answer).toEqual({ text: "I can't help with that.", exit_reason: 'refused' });
  });
});
