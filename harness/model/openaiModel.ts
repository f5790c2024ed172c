import type OpenAI from 'openai';
import { requestWithProviderRetries, type EndpointLimiter } from '../../src/provider/index.js';
import { tokenCount, type ModelInfo } from '../../src/schema/trace.js';
import { ModelError, type Model, type ModelCallContext, type ModelReply, type ModelRequest } from './types.js';

export interface OpenAIModelOptions {
  model: string;
  baseURL?: string | undefined;
  apiKey?: string | undefined;
  /** The time budget of a call when the caller sets no deadline (retries included). */
  timeoutMs?: number;
  /** Adaptive concurrency for the endpoint, shared by every call of the run. */
  limiter?: EndpointLimiter | undefined;
}

type ChatCompletion = OpenAI.Chat.Completions.ChatCompletion;

/** Kept back from the task's deadline, so a provider fault is reported as such before the task times out. */
const GRACE_MS = 250;

/** A 200 body as a chat completion, or null: such a body is a provider fault, retried like a 500. */
function parseCompletion(body: string): ChatCompletion | null {
  try {
    const parsed = JSON.parse(body) as { choices?: unknown } | null;
    return parsed && Array.isArray(parsed.choices) && parsed.choices.length > 0 ? (parsed as ChatCompletion) : null;
  } catch {
    return null;
  }
}

/** `401 Incorrect API key provided`: the status and the API's own message, as the openai client words it. */
function refusalMessage(status: number, statusText: string, body: string): string {
  let detail = body.trim().slice(0, 500) || `status code (no body)`;
  try {
    const error = (JSON.parse(body) as { error?: { message?: unknown } | string }).error;
    const message = typeof error === 'string' ? error : error?.message;
    if (typeof message === 'string' && message) detail = message;
  } catch {
    // not JSON: the text itself
  }
  return `${status} ${detail || statusText}`;
}

/**
 * Any OpenAI-compatible chat-completions endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LiteLLM.
 * It speaks the API directly through src/provider (retries within the task's budget, adaptive
 * concurrency, node:http); the `openai` package gives it the API's types. The client was a layer of
 * options, headers, debug formatting and WHATWG objects around one JSON POST whose retries, timeouts
 * and transport were already ours, and it cost more CPU a request than the request itself
 * (docs/performance.md).
 */
export class OpenAIModel implements Model {
  readonly info: ModelInfo;
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly budgetMs: number;

  constructor(private readonly options: OpenAIModelOptions) {
    // An empty variable counts as unset, as the openai clients read it.
    const baseURL = options.baseURL || process.env['OPENAI_BASE_URL']?.trim() || 'https://api.openai.com/v1';
    // Local servers (Ollama, llama.cpp) ignore the key, but OpenAI-compatible gateways expect the header.
    const apiKey = options.apiKey || process.env['OPENAI_API_KEY']?.trim() || 'not-needed';
    this.budgetMs = options.timeoutMs ?? 300_000;
    // Parsed once: a base URL that is not one fails when the model is built, not at every call.
    this.url = new URL(`${baseURL.replace(/\/+$/, '')}/chat/completions`);
    const organization = process.env['OPENAI_ORG_ID'];
    const project = process.env['OPENAI_PROJECT_ID'];
    this.headers = {
      accept: 'application/json',
      'content-type': 'application/json',
      'user-agent': 'tracegate-harness',
      authorization: `Bearer ${apiKey}`,
      ...(organization ? { 'openai-organization': organization } : {}),
      ...(project ? { 'openai-project': project } : {}),
    };
    this.info = { provider: 'openai', mode: 'live', model: options.model, base_url: baseURL };
  }

  async complete(request: ModelRequest, ctx: ModelCallContext): Promise<ModelReply> {
    const deadline = (ctx.deadline ?? Date.now() + this.budgetMs) - GRACE_MS;
    const body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
      model: request.model,
      messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
      ...(request.tools.length > 0 ? { tools: request.tools, tool_choice: openAIToolChoice(request.toolChoice) } : {}),
      ...(request.tools.length > 0 && typeof request.parallelToolCalls === 'boolean' ? { parallel_tool_calls: request.parallelToolCalls } : {}),
      ...(request.temperature === null ? {} : { temperature: request.temperature }),
    };
    // Parsed once, by the check that decides whether a 200 is a fault to retry.
    let completion: ChatCompletion | null = null;
    const acceptBody = (text: string) => (completion = parseCompletion(text)) !== null;
    let reply;
    try {
      reply = await requestWithProviderRetries(
        this.url,
        { method: 'POST', headers: this.headers, body: JSON.stringify(body) },
        { deadline, signal: ctx.signal, limiter: this.options.limiter, acceptBody, park: ctx.park },
      );
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      throw new ModelError('PROVIDER_ERROR', `task ${ctx.taskId}, step ${ctx.step}: ${detail}`, { cause: error });
    }
    // A status that is not a provider fault (400, 401, 404): the request itself was refused.
    if (reply.status < 200 || reply.status > 299 || completion === null) {
      throw new ModelError('PROVIDER_ERROR', `task ${ctx.taskId}, step ${ctx.step}: ${refusalMessage(reply.status, reply.statusText, reply.body)}`);
    }
    return toReply(completion, reply.faults.length, ctx);
  }
}

/** The reply the loop needs, read defensively: an OpenAI-compatible server is untrusted input. */
function toReply(completion: ChatCompletion, providerRetries: number, ctx: ModelCallContext): ModelReply {
  const choice = completion.choices[0];
  const message: Partial<ChatCompletion['choices'][number]['message']> = choice?.message ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    content: text(message.content),
    refusal: text(message.refusal),
    toolCalls: calls.flatMap((call, i) =>
      call?.type === 'function' && typeof call.function?.name === 'string'
        ? // Some OpenAI-compatible servers omit ids or arguments; results must still pair with calls.
          [{ id: text(call.id) || `call_${ctx.step}_${i + 1}`, name: call.function.name, arguments: text(call.function.arguments) ?? '' }]
        : [],
    ),
    usage: {
      input_tokens: tokenCount(completion.usage?.prompt_tokens),
      output_tokens: tokenCount(completion.usage?.completion_tokens),
    },
    finishReason: text(choice?.finish_reason),
    providerRetries,
  };
}

function openAIToolChoice(choice: ModelRequest['toolChoice']): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption {
  if (choice === undefined) return 'auto';
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
