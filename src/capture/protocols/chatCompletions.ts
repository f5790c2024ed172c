import { z } from 'zod';
import { ChatMessagesSchema, describeIssues } from '../../schema/agentIo.js';
import { ChunkAccumulator, completionBody, providerErrorOf, replyFromCompletion, sseBody } from '../chatReply.js';
import type { NormalizedRequest, Protocol, StreamFolder } from './protocol.js';

/**
 * OpenAI Chat Completions: `POST …/chat/completions` (JSON or SSE chunks ending in `data: [DONE]`)
 * and `GET …/models`. A function tool's `parameters` are optional, as in the API.
 */
const FunctionToolSchema = z.looseObject({
  function: z.looseObject({ name: z.string(), description: z.string().nullable().optional(), parameters: z.unknown().optional() }),
});
/** A `custom` tool (free-form input, GPT-5): its name and format in its own field. */
const CustomToolSchema = z.looseObject({ type: z.literal('custom'), custom: z.looseObject({ name: z.string(), description: z.string().nullable().optional(), format: z.unknown() }) });
type FunctionTool = z.infer<typeof FunctionToolSchema>;
type CustomTool = z.infer<typeof CustomToolSchema>;

const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: ChatMessagesSchema,
  tools: z.array(z.union([FunctionToolSchema, CustomToolSchema])).optional(),
  temperature: z.number().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
});

const isCustom = (t: FunctionTool | CustomTool): t is CustomTool => t['type'] === 'custom' && 'custom' in t;
/** A tool as the request key sees it: a custom tool's format stands where a function's parameters do. */
const keyedTool = (t: FunctionTool | CustomTool) => {
  const fn = isCustom(t) ? { name: t.custom.name, description: t.custom.description ?? undefined, parameters: t.custom.format } : { ...t.function, description: t.function.description ?? undefined };
  return { function: fn };
};

class ChatFolder implements StreamFolder {
  private readonly accumulator = new ChunkAccumulator();
  private done = false;
  private finished = false;

  add(data: string, event: string | null): string | null {
    if (data === '[DONE]') {
      this.done = true;
      return null;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      // A malformed chunk is passed on untouched; the agent's client decides what it means.
      return event === 'error' ? data.slice(0, 300) : null;
    }
    const problem = providerErrorOf(chunk) ?? (event === 'error' ? data.slice(0, 300) : null);
    if (problem !== null) return problem;
    this.accumulator.add(chunk);
    return null;
  }

  complete(): boolean {
    this.finished ||= this.accumulator.reply().finishReason !== null;
    return this.done || this.finished;
  }

  reply() {
    return this.accumulator.reply();
  }
}

export const chatCompletions: Protocol = {
  id: 'chat-completions',
  label: 'the OpenAI Chat Completions API',
  keyHeader: 'authorization',
  upstream: 'openai',
  forwardedHeaders: ['openai-organization', 'openai-project', 'openai-beta'],
  match(method, route, query) {
    const q = query.size ? `?${query.toString()}` : '';
    if (method === 'POST' && route.endsWith('/chat/completions')) return { kind: 'generate', upstreamPath: `/chat/completions${q}` };
    if (method === 'GET' && route.endsWith('/models')) return { kind: 'models', upstreamPath: '/models' };
    return null;
  },
  read(body) {
    const result = ChatRequestSchema.safeParse(body);
    if (!result.success) return `not a chat-completions request: ${describeIssues(result.error)}`;
    const parsed = result.data;
    const request: NormalizedRequest = {
      model: parsed.model,
      messages: parsed.messages,
      toolNames: (parsed.tools ?? []).map((t) => keyedTool(t).function.name),
      streamed: parsed.stream === true,
      keyed: { ...parsed, tools: parsed.tools?.map(keyedTool) },
      hints: { includeUsage: parsed.stream_options?.include_usage === true },
    };
    return request;
  },
  fold: replyFromCompletion,
  errorOf: providerErrorOf,
  folder: () => new ChatFolder(),
  write(reply, request, step) {
    const id = `chatcmpl-tracegate-${step}`;
    const created = Math.floor(Date.now() / 1000);
    return request.streamed
      ? { contentType: 'text/event-stream', body: sseBody(reply, id, created, request.hints['includeUsage'] === true) }
      : { contentType: 'application/json', body: JSON.stringify(completionBody(reply, id, created)) };
  },
};
