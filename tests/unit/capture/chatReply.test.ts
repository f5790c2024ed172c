import { describe, expect, it } from 'vitest';
import { replyFromCompletion } from '../../../src/capture/chatReply.js';
import { UsageSchema } from '../../../src/schema/trace.js';

describe('the capture proxy reading a model reply', () => {
  it('keeps only token counts a trace can hold: whole, non-negative, safe integers', () => {
    const usage = (u: unknown) => replyFromCompletion({ choices: [{ message: { content: 'ok' } }], usage: u }).usage;
    expect(usage({ prompt_tokens: 1e308, completion_tokens: 12.7 })).toEqual({ input_tokens: 0, output_tokens: 12 });
    expect(usage({ prompt_tokens: -5, completion_tokens: '7' })).toEqual({ input_tokens: 0, output_tokens: 0 });
    const read = usage({ prompt_tokens: Number.MAX_SAFE_INTEGER, completion_tokens: NaN })!;
    expect(UsageSchema.safeParse({ ...read, total_tokens: read.input_tokens + read.output_tokens }).success).toBe(true);
  });

  it('reads what OpenAI-compatible servers send unlike OpenAI: arguments as a JSON object (llama.cpp), content as a list of parts (Mistral)', () => {
    const reply = replyFromCompletion({
      choices: [
        {
          message: {
            content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] }, { type: 'text', text: 'Reading ' }, { type: 'text', text: 'it.' }],
            tool_calls: [{ id: 'c1', function: { name: 'read_file', arguments: { path: 'README.md' } } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
    expect(reply.content).toBe('Reading it.');
    expect(reply.toolCalls).toEqual([{ id: 'c1', name: 'read_file', arguments: '{"path":"README.md"}' }]);
  });
});
