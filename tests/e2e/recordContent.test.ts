import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunReportSchema } from '../../src/schema/report.js';
import { TraceSchema, type Trace } from '../../src/schema/trace.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

const ENV_SECRET = 'Wv7-Qx3Kp9-Jr5Lm2-Yb4';
const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----';
const LONG_ANSWER = `the notes hold a key. ${'x'.repeat(3000)} the end`;

/** A run of one agent task (read a file, then answer at length) at each --record-content level. */
describe('--record-content none|summary|full', () => {
  // Answered by what the request holds, not by its index: every run asks twice, a retry asks again.
  const server = new FakeOpenAIServer((body) =>
    body.messages.at(-1)!.role === 'tool' ? { content: LONG_ANSWER } : { content: 'Reading.', tool_calls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
  );
  let baseUrl = '';
  let suite = '';
  beforeAll(async () => {
    baseUrl = await server.start();
    const dir = tempDir();
    mkdirSync(path.join(dir, 'ws'));
    writeFileSync(path.join(dir, 'ws', 'notes.txt'), `deploy notes\n${PEM}\n`);
    suite = path.join(dir, 'suite.jsonl');
    writeFileSync(suite, JSON.stringify({ id: 'notes', prompt: `Summarize notes.txt (the token is ${ENV_SECRET}).`, workspace: 'ws', expected_tools: ['read_file'] }) + '\n');
  });
  afterAll(() => server.stop());

  async function traceAt(level: string | null): Promise<{ trace: Trace; text: string }> {
    const out = tempDir();
    const run = await runCli(['run', suite, '--model', 'm', '--base-url', baseUrl, '--out', out, '-q', '--no-html', ...(level ? ['--record-content', level] : [])], {
      env: { OPENAI_API_KEY: 'sk-test-not-real-000000000000', MY_SERVICE_TOKEN: ENV_SECRET },
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    const text = readFileSync(path.join(out, report.tasks[0]!.trace_file!), 'utf8');
    return { trace: TraceSchema.parse(JSON.parse(text)), text };
  }
  const llmSpans = (t: Trace) => t.spans.filter((s) => s.kind === 'llm');
  const root = (t: Trace) => t.spans.find((s) => s.parent_id === null)!.attributes;

  it('full: every input message of each model call and the whole reply, redacted', async () => {
    const { trace, text } = await traceAt('full');
    expect(root(trace)['llm.record_content']).toBe('full');
    const [first, second] = llmSpans(trace);
    const sent = (span: typeof first) => JSON.parse(String(span!.attributes['llm.input_messages'])) as Array<{ role: string; content: string | null; tool_call_id?: string }>;
    expect(sent(first).map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent(first)[1]!.content).toBe('Summarize notes.txt (the token is [REDACTED:env]).');
    expect(sent(second).map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    // The tool result's PEM block was redacted before it was escaped as JSON.
    expect(sent(second)[3]!.content).toContain('deploy notes');
    expect(sent(second)[3]!.content).toContain('[REDACTED:private_key]');
    expect(second!.attributes['llm.output_content']).toBe(LONG_ANSWER);
    expect(String(second!.attributes['llm.content_preview'])).toHaveLength(2000);
    expect(text).not.toContain(ENV_SECRET);
    expect(text).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
  });

  it('summary (the default): a 2000-character preview of each reply, no input messages', async () => {
    for (const level of [null, 'summary']) {
      const { trace } = await traceAt(level);
      expect(root(trace)['llm.record_content']).toBe('summary');
      const second = llmSpans(trace)[1]!;
      expect(second.attributes['llm.content_preview']).toBe(LONG_ANSWER.slice(0, 2000));
      expect(second.attributes).not.toHaveProperty('llm.input_messages');
      expect(second.attributes).not.toHaveProperty('llm.output_content');
    }
  });

  it('none: no message text on llm spans, while counts, tokens, tool spans and the final answer stay for the checks', async () => {
    const { trace, text } = await traceAt('none');
    expect(root(trace)['llm.record_content']).toBe('none');
    for (const span of llmSpans(trace)) {
      for (const key of ['llm.content_preview', 'llm.input_messages', 'llm.output_content']) expect(span.attributes).not.toHaveProperty(key);
      expect(span.attributes['llm.messages']).toBeGreaterThan(0);
    }
    expect(trace.spans.some((s) => s.kind === 'tool' && s.attributes['gen_ai.tool.name'] === 'read_file')).toBe(true);
    expect(trace.final_answer.text).toBe(LONG_ANSWER);
    expect(text).not.toContain('Reading.');
  });

  it('an unknown level is bad input (exit 2)', async () => {
    const run = await runCli(['run', suite, '--record-content', 'everything', '--out', tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--record-content.*everything.*none, summary, full/s);
  });
});
