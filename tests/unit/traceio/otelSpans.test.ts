import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { llmSpans, toolAttr, toolSpans } from '../../../src/schema/trace.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { FIXTURES } from '../../helpers/samples.js';

const otlp = (name: string) => parseTraces(readFileSync(path.join(FIXTURES, 'otlp', name)), name);

describe('OTLP GenAI content', () => {
  for (const file of ['genai-events.json', 'genai-content-events.json']) {
    it(`${file}: the reply and its tool calls from span events; the last reply is the answer`, () => {
      const [t] = otlp(file).traces;
      const llm = llmSpans(t!);
      expect(llm.map((s) => s.attributes['llm.tool_calls'])).toEqual([1, 1, 0]);
      expect(llm[0]!.attributes['llm.content_preview']).toBe('Let me check the weather.');
      expect(t!.final_answer).toEqual({ text: 'It is 21°C in Paris — sunny ☀️.', exit_reason: 'completed' });
      expect(toolSpans(t!)).toHaveLength(2); // the execute_tool spans, not doubled by the messages
    });
  }

  it('tool calls that exist only in gen_ai.output.messages, answered in the next call\'s gen_ai.input.messages', () => {
    const [t] = otlp('genai-no-tool-spans.json').traces;
    const [call] = toolSpans(t!).map(toolAttr);
    expect(toolSpans(t!)).toHaveLength(1);
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}', result: '{"temp_c": 21}', ok: true, step: 1 });
    expect(t!.final_answer.text).toBe('21°C');
  });
});

describe('OTLP/JSON encodings', () => {
  it('snake_case proto field names, AnyValue included (string_value, int_value, array_value …)', () => {
    const [t] = otlp('genai-snake.json').traces;
    expect(llmSpans(t!)).toHaveLength(3);
    expect(t!.usage).toEqual({ input_tokens: 580, output_tokens: 65, total_tokens: 645 });
    expect(toolSpans(t!).map((s) => toolAttr(s).name)).toEqual(['get_weather', 'read_file']);
    expect(t!.model.model).toBe('gpt-4o');
  });

  it('spans that start within one millisecond are ordered by their nanoseconds, not by their place in the file', () => {
    const [t] = otlp('genai-submillisecond.json').traces;
    expect(toolSpans(t!).map((s) => [toolAttr(s).name, toolAttr(s).step])).toEqual([
      ['get_weather', 1],
      ['read_file', 2],
    ]);
    expect(llmSpans(t!)[0]!.attributes['llm.content_preview']).toBe('Let me check the weather.');
    expect(t!.final_answer.text).toBe('It is 21°C in Paris — sunny ☀️.');
  });
});

describe('OpenInference', () => {
  it('LangChain over OpenAI: a nested LLM pair is one call (the inner one); a JSON CHAIN output is unwrapped; contents.N.message_content.text is read', () => {
    const [t] = otlp('openinference-langchain.json').traces;
    const llm = llmSpans(t!);
    expect(llm).toHaveLength(2);
    expect(llm[0]!.span_id).toBe('2000000000000002');
    expect(llm[0]!.attributes['llm.tool_calls']).toBe(2);
    expect(llm[1]!.attributes['llm.content_preview']).toBe('23 times 87 is 2001.');
    expect(t!.usage).toEqual({ input_tokens: 250, output_tokens: 30, total_tokens: 280 });
    expect(t!.final_answer).toEqual({ text: '23 times 87 is 2001.', exit_reason: 'completed' });
  });
});

describe('OpenLLMetry (Traceloop)', () => {
  it('llm.request.type chat spans are model calls, traceloop.span.kind tool spans are tool calls, the workflow is the root and its output the answer', () => {
    const imported = otlp('traceloop-style.json');
    const [t] = imported.traces;
    expect(llmSpans(t!).map((s) => s.attributes['llm.tool_calls'])).toEqual([1, 1, 0]);
    const calls = toolSpans(t!).map(toolAttr);
    expect(calls.map((c) => [c.name, c.ok, c.step])).toEqual([
      ['get_weather', true, 1],
      ['read_file', false, 2],
    ]);
    expect(calls[0]).toMatchObject({ arguments: '{"city":"Paris"}', result: '{"temp_c": 21}' });
    expect(calls[1]!.errorType).toBe('PERMISSION_DENIED');
    expect(t!.usage).toEqual({ input_tokens: 580, output_tokens: 65, total_tokens: 645 });
    expect(t!.final_answer).toEqual({ text: 'It is 21°C in Paris — sunny ☀️.', exit_reason: 'completed' });
    expect(t!.spans[0]!.attributes['tracegate.import.unknown'] ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(/skipped/)]));
  });
});

describe('GenAI per-message events without tool spans', () => {
  it('a gen_ai.choice tool call is answered by the next call\'s gen_ai.tool.message event', () => {
    const kv = (key: string, v: string | number) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });
    const chat = (id: string, start: number, events: unknown[]) => ({ traceId: 'a'.repeat(32), spanId: id, name: 'chat m', startTimeUnixNano: String(start), endTimeUnixNano: String(start + 1000), attributes: [kv('gen_ai.operation.name', 'chat')], events });
    const choice = (message: unknown) => ({ name: 'gen_ai.choice', timeUnixNano: '1', attributes: [kv('index', 0), kv('message', JSON.stringify(message))] });
    const request = {
      resourceSpans: [{ scopeSpans: [{ spans: [
        chat('0000000000000001', 1e15, [choice({ role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } }] })]),
        chat('0000000000000002', 2e15, [{ name: 'gen_ai.tool.message', timeUnixNano: '1', attributes: [kv('id', 'c1'), kv('content', 'a.txt')] }, choice({ role: 'assistant', content: 'One file.' })]),
      ] }] }],
    };
    const [t] = parseTraces(new TextEncoder().encode(JSON.stringify(request)), 'ev.json').traces;
    expect(toolSpans(t!).map(toolAttr)).toMatchObject([{ name: 'ls', arguments: '{"path":"."}', result: 'a.txt', ok: true }]);
    expect(t!.final_answer.text).toBe('One file.');
  });
});
