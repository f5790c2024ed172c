import { RUN_DEFAULTS } from '../../src/schema/runDefaults.js';
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
    // OpenAI's `{error: {message}}`; also vLLM's `{object: "error", message}` and FastAPI's `{detail}`.
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown } | null;
    const error = parsed?.error;
    const message = typeof error === 'string' ? error : (error?.message ?? parsed?.message ?? parsed?.detail);
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
    const baseURL = options.baseURL || process.env['OPENAI_BASE_URL']?.trim() || RUN_DEFAULTS.openaiBaseUrl;
    // Local servers (Ollama, llama.cpp) ignore the key, but OpenAI-compatible gateways expect the header.
    const apiKey = options.apiKey || process.env[RUN_DEFAULTS.apiKeyEnv]?.trim() || 'not-needed';
    this.budgetMs = options.timeoutMs ?? RUN_DEFAULTS.timeoutMs;
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
      // A 404 or 405 is most often the URL (a base URL without its `/v1`): name the one posted to.
      const where = reply.status === 404 || reply.status === 405 ? ` (POST ${this.url.origin}${this.url.pathname})` : '';
      throw new ModelError('PROVIDER_ERROR', `task ${ctx.taskId}, step ${ctx.step}: ${refusalMessage(reply.status, reply.statusText, reply.body)}${where}`);
    }
    return toReply(completion, reply.faults.length, ctx);
  }
}

/** The reply the loop needs, read defensively: an OpenAI-compatible server is untrusted input. */
function toReply(completion: ChatCompletion, providerRetries: number, ctx: ModelCallContext): ModelReply {
  const choice = completion.choices[0];
  const message: Partial<ChatCompletion['choices'][number]['message']> = choice?.message ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const calls: unknown[] = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const ids = new Set<string>();
  return {
    content: contentText(message.content),
    refusal: text(message.refusal),
    toolCalls: calls.flatMap((raw, i) => {
      const call = toolCall(raw);
      if (!call) return [];
      // Some servers omit ids or repeat one across the calls of a reply; results must still pair with calls.
      let id = text(call.id) || `call_${ctx.step}_${i + 1}`;
      for (let n = 2; ids.has(id); n++) id = `${text(call.id) || `call_${ctx.step}_${i + 1}`}_${n}`;
      ids.add(id);
      return [{ id, name: call.name, arguments: argumentText(call.arguments) }];
    }),
    usage: {
      input_tokens: tokenCount(completion.usage?.prompt_tokens),
      output_tokens: tokenCount(completion.usage?.completion_tokens),
    },
    finishReason: text(choice?.finish_reason),
    providerRetries,
  };
}

/**
 * A function call, with or without `type` (Mistral's API and some vLLM/Ollama builds omit it); null
 * for anything else (another type, no function name), which the loop cannot run.
 */
function toolCall(raw: unknown): { id: unknown; name: string; arguments: unknown } | null {
  if (!raw || typeof raw !== 'object') return null;
  const call = raw as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } | null };
  if (call.type !== undefined && call.type !== null && call.type !== 'function') return null;
  const fn = call.function;
  if (!fn || typeof fn !== 'object' || typeof fn.name !== 'string' || fn.name === '') return null;
  return { id: call.id, name: fn.name, arguments: fn.arguments };
}

/**
 * The arguments as the JSON text the API specifies. Some servers (llama.cpp's server in some builds,
 * Ollama-style gateways) send the object itself: it is serialized, never lost; a missing value is no
 * arguments. Anything else is kept as JSON text for the tool layer to refuse, with the evidence.
 */
function argumentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}

/** `content` as text: a string, or the text parts of a content array (Mistral's reasoning models send one). */
function contentText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return null;
  const parts = value.flatMap((part: unknown) =>
    part && typeof part === 'object' && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string'
      ? [(part as { text: string }).text]
      : [],
  );
  return parts.length > 0 ? parts.join('') : null;
}

function openAIToolChoice(choice: ModelRequest['toolChoice']): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption {
  if (choice === undefined) return 'auto';
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
