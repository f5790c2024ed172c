import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { llmSpans, toolAttr, toolSpans, type Trace } from '../../../src/schema/trace.js';
import { attr } from '../../../src/schema/traceVocabulary.js';
import { ImportError } from '../../../src/traceio/importError.js';
import { importRow } from '../../../src/traceio/importSummary.js';
import { quoteBigIntegers } from '../../../src/traceio/jsonText.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { FIXTURES } from '../../helpers/samples.js';

const fixture = (name: string) => parseTraces(readFileSync(path.join(FIXTURES, name)), name);
const json = (value: unknown, name = 'x.json') => parseTraces(strToU8(JSON.stringify(value)), name);
const names = (t: Trace) => toolSpans(t).map((s) => toolAttr(s).name);

function importFails(bytes: Uint8Array, name: string, format: Parameters<typeof parseTraces>[2] = 'auto'): ImportError {
  try {
    parseTraces(bytes, name, format);
  } catch (error) {
    expect(error).toBeInstanceOf(ImportError);
    return error as ImportError;
  }
  throw new Error(`${name} was imported`);
}

describe('OTLP/JSON', () => {
  it('GenAI spans in JSON Lines, out of order: turns by start time, exception → error type, usage summed, the last reply is the answer', () => {
    const imported = fixture('genai-otlp.jsonl');
    expect(imported.format).toBe('otlp-json');
    const [t] = imported.traces;
    expect(t!.task_id).toBe('weather_001'); // tracegate.task_id on the invoke_agent span
    expect(llmSpans(t!)).toHaveLength(2);
    const [tool] = toolSpans(t!);
    expect(toolAttr(tool!)).toMatchObject({ name: 'get_weather', ok: false, errorType: 'COMMAND_TIMEOUT', message: 'upstream took 30s', step: 1 });
    expect(attr(tool!, 'toolCallId')).toBe('call_1');
    expect(tool!.events.map((e) => e.name)).toEqual(['exception']);
    expect(t!.usage).toEqual({ input_tokens: 320, output_tokens: 45, total_tokens: 365 });
    expect(t!.final_answer).toEqual({ text: 'The weather service timed out; I cannot tell.', exit_reason: 'completed' });
    expect(llmSpans(t!)[0]!.attributes['llm.tool_calls']).toBe(1);
    // Arguments and results are opt-in upstream: absent here, and said so.
    expect(importRow(imported).unknown).toEqual(expect.arrayContaining(['tool arguments', 'tool results']));
    // An attribute of a kind tracegate does not store becomes JSON text, never a crash.
    expect(llmSpans(t!)[0]!.attributes['some.future.attribute']).toBe('{"x":1.5}');
  });

  it('OpenInference: AGENT/LLM/TOOL kinds, input.value as arguments, FileNotFoundError → FILE_NOT_FOUND, the agent output as the answer', () => {
    const [t] = fixture('openinference-otlp.json').traces;
    expect(names(t!)).toEqual(['read_file', 'read_file']);
    const [missing, found] = toolSpans(t!).map(toolAttr);
    expect(missing).toMatchObject({ ok: false, errorType: 'FILE_NOT_FOUND', arguments: '{"path":"README2.md"}' });
    expect(found).toMatchObject({ ok: true, result: 'hello', step: 1 }); // both calls came before the second model call
    expect(t!.final_answer.text).toBe('README.md says hello');
    expect(t!.usage.input_tokens).toBe(50);
    expect(t!.model.model).toBe('gpt-4o-mini');
  });

  it("Vercel AI SDK: ai.generateText.doGenerate model calls and ai.toolCall spans", () => {
    const [t] = fixture('vercel-ai-otlp.json').traces;
    expect(llmSpans(t!)).toHaveLength(2);
    expect(toolAttr(toolSpans(t!)[0]!)).toMatchObject({ name: 'weather', arguments: '{"city":"Paris"}', result: '{"celsius":21}', ok: true });
    expect(llmSpans(t!)[0]!.attributes['llm.tool_calls']).toBe(1);
    expect(t!.final_answer.text).toBe('It is 21 degrees.');
  });

  it('two trace ids in one file are two traces, named after the file and the trace id', () => {
    const span = (traceId: string) => ({ traceId, spanId: '0000000000000001', name: 'execute_tool x', attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }] });
    const imported = json({ resourceSpans: [{ scopeSpans: [{ spans: [span('1'.repeat(32)), span('2'.repeat(32))] }] }] }, 'two.json');
    expect(imported.traces.map((t) => t.task_id)).toEqual(['two-11111111', 'two-22222222']);
  });
});

describe('span exports of other tools', () => {
  it('SDK console output: concatenated span objects, 0x ids and ids as integers too big for a double, parents across spans', () => {
    const imported = fixture('python-console-spans.log');
    expect(imported.format).toBe('otel-sdk-spans');
    expect(imported.traces).toHaveLength(1);
    const [t] = imported.traces;
    expect(t!.trace_id).toBe('5b8efff798038103d269b633813fc60c');
    const [tool] = toolSpans(t!);
    expect(tool!.parent_id).toBe('eee19b7ec3c1b173'); // the root, whose id was a decimal integer
    expect(toolAttr(tool!)).toMatchObject({ name: 'run_shell', ok: false, errorType: 'PERMISSION_DENIED', message: 'Permission denied: /etc/shadow' });
  });

  it('big integers keep every digit; strings that look like numbers are untouched', () => {
    expect(quoteBigIntegers('{"a": 17213210219539181939, "b": "12345678901234567890", "c": 1.5e300, "d": 42}')).toBe(
      '{"a": "17213210219539181939", "b": "12345678901234567890", "c": 1.5e300, "d": 42}',
    );
  });

  it('Jaeger: tags, CHILD_OF references, µs times, error tag; a tracegate error type passes through', () => {
    const imported = fixture('jaeger-export.json');
    expect(imported.format).toBe('jaeger');
    const [t] = imported.traces;
    expect(toolAttr(toolSpans(t!)[0]!)).toMatchObject({ name: 'calculator', ok: false, errorType: 'DIVISION_BY_ZERO' });
    expect(llmSpans(t!)[0]!.events.map((e) => e.name)).toEqual(['retry']);
    expect(t!.started_at).toBe('2023-11-14T22:13:20.000Z');
    expect(t!.final_answer.exit_reason).toBe('unknown');
  });

  it('Phoenix: span_kind and nested OpenInference attributes', () => {
    const imported = fixture('phoenix-spans.jsonl');
    expect(imported.format).toBe('phoenix');
    const [t] = imported.traces;
    expect(llmSpans(t!)).toHaveLength(1);
    expect(t!.usage).toMatchObject({ input_tokens: 7, output_tokens: 3 });
    expect(t!.final_answer).toEqual({ text: 'Paris', exit_reason: 'completed' });
  });
});

describe('agent logs', () => {
  it('mini-swe-agent current format: info.exit_status and info.submission, a non-zero return code is a tool error', () => {
    const imported = fixture('mini-swe-agent-v2.traj.json');
    expect(imported.format).toBe('mini-swe-agent');
    expect(importRow(imported)).toMatchObject({ model_calls: 3, tool_calls: 3, errors: 1, final_answers: 1 });
    const [t] = imported.traces;
    expect(toolAttr(toolSpans(t!)[0]!)).toMatchObject({ ok: false, errorType: 'COMMAND_FAILED', message: 'exit code 1' });
    expect(t!.final_answer).toEqual({ text: 'diff --git a/x b/x', exit_reason: 'completed' });
    expect(t!.model.model).toBe('gpt-5-mini');
  });

  it('SWE-agent: an exit_cost run without submission is cut off with no answer', () => {
    const [t] = json({ trajectory: [{ action: 'ls', observation: 'a', response: 'look', thought: 'look' }], history: [], info: { exit_status: 'exit_cost' } }, 'run.traj').traces;
    expect(t!.final_answer).toEqual({ text: null, exit_reason: 'max_steps' });
    expect(names(t!)).toEqual(['ls']);
  });

  it('OpenAI messages: tool results paired by id whatever their order; content parts joined', () => {
    const imported = fixture('openai-messages.json');
    expect(imported.format).toBe('openai-messages');
    const [t] = imported.traces;
    expect(toolSpans(t!).map((s) => [toolAttr(s).name, toolAttr(s).result])).toEqual([
      ['calculator', '42'],
      ['read_file', 'notes: buy milk'],
    ]);
    expect(t!.final_answer).toEqual({ text: '6*7 is 42 and the notes say buy milk.', exit_reason: 'completed' });
  });

  it('OpenAI messages cut before the tool answered: no result, no answer, and the table says so', () => {
    const imported = fixture('openai-messages-unanswered.json');
    const [t] = imported.traces;
    expect(toolAttr(toolSpans(t!)[0]!).result).toBeNull();
    expect(t!.final_answer).toEqual({ text: null, exit_reason: 'unknown' });
    expect(importRow(imported).unknown).toEqual(expect.arrayContaining(['final answer', 'tool results']));
  });

  it('Inspect .eval with two epochs, model/tool events, a tool error event and a message limit', () => {
    const sample = (epoch: number, limit: boolean) => ({
      id: 'task_a',
      epoch,
      messages: [],
      output: limit ? { model: 'm', choices: [] } : { model: 'm', choices: [{ message: { role: 'assistant', content: 'ok' } }], completion: 'ok' },
      ...(limit ? { limit: { type: 'message', limit: 10 } } : {}),
      events: [
        { event: 'model', timestamp: '2025-01-01T00:00:00+00:00', model: 'openai/gpt-4o', output: { choices: [{ message: { role: 'assistant', content: '', tool_calls: [{ id: 't1', function: 'bash', arguments: { cmd: 'sleep 99' } }] } }], usage: { input_tokens: 5, output_tokens: 2 } } },
        { event: 'tool', timestamp: '2025-01-01T00:00:01+00:00', id: 't1', function: 'bash', arguments: { cmd: 'sleep 99' }, result: '', error: { type: 'timeout', message: 'Command timed out' } },
        { event: 'unknown_future_event', whatever: true },
        { event: 'subtask', name: 'helper', events: [{ event: 'tool', id: 't2', function: 'read', arguments: {}, result: 'x' }] },
      ],
    });
    const archive = zipSync({
      'header.json': strToU8(JSON.stringify({ version: 2, status: 'success', eval: { task: 't', model: 'openai/gpt-4o' } })),
      'samples/task_a_epoch_1.json': strToU8(JSON.stringify(sample(1, false))),
      'samples/task_a_epoch_2.json': strToU8(JSON.stringify(sample(2, true))),
    });
    const imported = parseTraces(archive, 'two.eval');
    expect(imported.traces.map((t) => [t.task_id, t.epoch, t.final_answer.exit_reason])).toEqual([
      ['task_a', 0, 'completed'],
      ['task_a', 1, 'max_steps'],
    ]);
    expect(toolAttr(toolSpans(imported.traces[0]!)[0]!)).toMatchObject({ errorType: 'COMMAND_TIMEOUT', message: 'Command timed out', ok: false });
    expect(names(imported.traces[0]!)).toEqual(['bash', 'read']); // the subtask's tool call too
  });
});

describe('bad input', () => {
  it('a truncated file, a JSON file of no known format, an empty file, a broken zip: each an ImportError naming the file', () => {
    expect(importFails(readFileSync(path.join(FIXTURES, 'broken-truncated.json')), 'broken-truncated.json').problem).toBe('BAD_JSON');
    const unknown = importFails(readFileSync(path.join(FIXTURES, 'not-a-trace.json')), 'not-a-trace.json');
    expect(unknown.problem).toBe('UNKNOWN_FORMAT');
    expect(unknown.message).toMatch(/^not-a-trace\.json: not a format tracegate imports/);
    expect(importFails(new Uint8Array(), 'empty.json').problem).toBe('EMPTY');
    expect(importFails(new Uint8Array([0x50, 0x4b, 3, 4, 9, 9, 9]), 'bad.eval').problem).toBe('BAD_ARCHIVE');
  });

  it('a named --format that does not fit the file is refused', () => {
    expect(importFails(readFileSync(path.join(FIXTURES, 'openai-messages.json')), 'm.json', 'jaeger').problem).toBe('BAD_FORMAT');
  });

  it('an OTLP span without ids is refused with its name', () => {
    const error = importFails(strToU8(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ name: 'no ids' }] }] }] })), 'x.json');
    expect(error.message).toContain('"no ids"');
  });
});

describe('unknown fields', () => {
  /** Every object of a JSON value gets a field no format knows, holding values of every JSON type. */
  function sprinkle(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(sprinkle);
    if (value && typeof value === 'object') {
      return { ...Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sprinkle(v)])), zz_future_field: { nested: [1, 'x', null, true, { deeper: 2.5 }] } };
    }
    return value;
  }

  for (const name of ['genai-otlp.jsonl', 'openinference-otlp.json', 'vercel-ai-otlp.json', 'jaeger-export.json', 'phoenix-spans.jsonl', 'mini-swe-agent-v2.traj.json', 'openai-messages.json']) {
    it(`${name}: the same traces and counts with an unknown field in every object`, () => {
      const text = readFileSync(path.join(FIXTURES, name), 'utf8');
      const changed = name.endsWith('.jsonl')
        ? text.trim().split('\n').map((l) => JSON.stringify(sprinkle(JSON.parse(l)))).join('\n')
        : JSON.stringify(sprinkle(JSON.parse(text)));
      const before = importRow(fixture(name));
      const after = importRow(parseTraces(strToU8(changed), name));
      expect(after).toEqual(before);
    });
  }

  it('OpenAI messages with the older function_call / role "function" pair by name', () => {
    const [t] = json([
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, function_call: { name: 'weather', arguments: '{"city":"Oslo"}' } },
      { role: 'function', name: 'weather', content: 'cold' },
      { role: 'assistant', content: 'It is cold.' },
    ]).traces;
    expect(toolAttr(toolSpans(t!)[0]!)).toMatchObject({ name: 'weather', arguments: '{"city":"Oslo"}', result: 'cold', ok: true });
    expect(toolSpans(t!)).toHaveLength(1);
  });
});

describe('the JavaScript SDK span info saved as JSON', () => {
  it('traceId/id, parentSpanContext, µs timestamp and duration, HrTime event times, status codes', () => {
    const imported = fixture('js-sdk-spans.json');
    expect(imported.format).toBe('otel-sdk-spans');
    const [t] = imported.traces;
    expect(toolAttr(toolSpans(t!)[0]!)).toMatchObject({ name: 'list_files', ok: true, result: 'a.txt', step: 1 });
    const [chat] = llmSpans(t!);
    expect(chat).toMatchObject({ status: 'error', start: '2023-11-14T22:13:20.500Z', end: '2023-11-14T22:13:20.900Z' });
    expect(chat!.events).toEqual([{ name: 'retry', time: '2023-11-14T22:13:20.700Z', attributes: {} }]);
  });
});

describe('OTLP variants', () => {
  it("Jaeger's v3 API answer ({result: request}) and 64-bit times as {low, high}", () => {
    const ns = 1700000000123000000n;
    const long = { low: Number(ns & 0xffffffffn) | 0, high: Number(ns >> 32n) };
    const request = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name: 'execute_tool t', startTimeUnixNano: long, endTimeUnixNano: long, attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }] }] }] }] };
    const imported = json({ result: request }, 'jaeger-v3.json');
    expect(imported.format).toBe('otlp-json');
    expect(toolSpans(imported.traces[0]!)[0]!.start).toBe('2023-11-14T22:13:20.123Z');
  });
});
