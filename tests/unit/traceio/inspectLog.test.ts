import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { llmSpans, toolAttr, toolSpans } from '../../../src/schema/trace.js';
import { parseTraces } from '../../../src/traceio/registry.js';
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
});
