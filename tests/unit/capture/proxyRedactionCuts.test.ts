import { describe, expect, it } from 'vitest';
import { redactedTail } from '../../../src/adapters/redactedTail.js';
import type { ChatReply } from '../../../src/capture/chatReply.js';
import type { Exchange } from '../../../src/capture/exchange.js';
import { spansFromTraffic } from '../../../src/capture/trafficSpans.js';
import { createRedactor } from '../../../src/schema/redact.js';
import type { Span } from '../../../src/schema/trace.js';

/**
 * The capture proxy's spans and the external adapters' evidence cut long texts (tool results,
 * arguments, model replies, stderr tails). Redaction must come before each cut: a secret straddling
 * a cut must show none of its parts, in the span and in the trace as written (redacted again).
 */
const ENV_SECRET = 'Zq9x-literal-77Kp';
const redactor = createRedactor({ MY_SERVICE_TOKEN: ENV_SECRET });
const SECRETS: Array<[string, string]> = [
  ['openai', 'sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4'],
  ['github', 'ghp_' + 'Ab1'.repeat(12)],
  ['env literal', ENV_SECRET],
];
/** The cuts trafficSpans makes: result and content previews, and arguments. */
const PREVIEW = 2000;
const ARGUMENTS = 4000;

const reply = (content: string | null, calls: Array<[string, string, string]> = []): ChatReply => ({
  model: 'm', content, refusal: null, toolCalls: calls.map(([id, name, args]) => ({ id, name, arguments: args })), usage: null, finishReason: calls.length ? 'tool_calls' : 'stop',
});
const exchange = (index: number, messages: Exchange['messages'], r: ChatReply): Exchange => ({
  index, started: `2026-01-01T00:00:0${index}.000Z`, ended: `2026-01-01T00:00:0${index}.500Z`, model: 'm', messages, toolNames: ['run'], streamed: false, source: 'live', reply: r, error: null,
});

/** A conversation whose tool result, tool arguments and final reply each carry `secret` across their cut at offset k. */
function traffic(secret: string, k: number): Exchange[] {
  const across = (cut: number) => 'x '.repeat(cut / 2).slice(0, cut - k - 1) + ' ' + secret + ' and then more text';
  const args = across(ARGUMENTS);
  const user = { role: 'user' as const, content: 'go' };
  const call = { id: 'c1', type: 'function', function: { name: 'run', arguments: args } };
  return [
    exchange(1, [user], reply(null, [['c1', 'run', args]])),
    exchange(2, [user, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'c1', content: across(PREVIEW) }], reply(across(PREVIEW))),
  ];
}

const previews = (spans: Span[]) =>
  spans.flatMap((s) => [s.attributes['gen_ai.tool.call.result'], s.attributes['gen_ai.tool.call.arguments'], s.attributes['llm.content_preview']]).filter((v): v is string => typeof v === 'string' && v.length > 100);

function expectNoPart(texts: string[], secret: string, label: string): void {
  expect(texts.length, label).toBe(3);
  for (const text of texts) for (let i = 0; i + 4 <= secret.length; i++) expect(text, label).not.toContain(secret.slice(i, i + 4));
}

describe('the capture proxy redacts before it cuts', () => {
  it.each(SECRETS)('%s: result, argument and reply previews cut anywhere inside the secret show none of it', (name, secret) => {
    for (let k = 1; k < secret.length; k++) {
      const { spans } = spansFromTraffic(traffic(secret, k), 'root', [], 'live', [], redactor.preview);
      expectNoPart(previews(spans), secret, `${name} cut at ${k} (run's redactor)`);
      // Without a redactor the cut drops the straddling token whole; the trace's redaction does the rest.
      const plain = redactor.deep(spansFromTraffic(traffic(secret, k), 'root').spans);
      expectNoPart(previews(plain), secret, `${name} cut at ${k} (cut at a token, redacted when written)`);
    }
    // The naive order (cut, then redact) leaks the first part: the test can fail.
    const naive = redactor.text(traffic(secret, 5)[1]!.messages.at(-1)!.content!.toString().slice(0, PREVIEW));
    expect(naive).toContain(secret.slice(0, 5));
  });

  it.each(SECRETS)('%s: an agent stderr tail cut anywhere inside the secret shows none of it', (name, secret) => {
    for (let k = 1; k < secret.length; k++) {
      // The 4000-character evidence tail starts k characters before the secret's end...
      const stderr = 'y '.repeat(3000) + secret + ' ' + 'z'.repeat(4000 - k - 1);
      const tail = redactedTail(redactor, stderr, 4000, false);
      expect(tail.length, `${name} tail at ${k}`).toBeLessThanOrEqual(4000);
      for (let i = 0; i + 4 <= secret.length; i++) expect(tail, `${name} tail at ${k}`).not.toContain(secret.slice(i, i + 4));
      // ...and the 16 KB buffer kept by the process runner may itself begin inside a secret.
      const buffered = redactedTail(redactor, secret.slice(k) + ' rest of the log', 4000, true);
      expect(buffered, `${name} buffer at ${k}`).toBe(' rest of the log');
    }
    expect(redactedTail(redactor, `boom: token ${secret} rejected`, 4000, false)).not.toContain(secret.slice(0, 4));
  });
});
