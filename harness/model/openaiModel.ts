import OpenAI from 'openai';
import { providerCall, providerCallInit, providerFetch, type EndpointLimiter } from '../../src/provider/index.js';
import type { ModelInfo } from '../../src/schema/trace.js';
import { nodeHttpFetch } from './nodeHttpFetch.js';
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

/** Kept back from the task's deadline, so a provider fault is reported as such before the task times out. */
const GRACE_MS = 250;

/** A 200 whose body is not a chat completion is a provider fault, retried like a 500. */
function isChatCompletion(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { choices?: unknown };
    return Array.isArray(parsed.choices) && parsed.choices.length > 0;
  } catch {
    return false;
  }
}

/** Any OpenAI-compatible chat-completions endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LiteLLM. */
export class OpenAIModel implements Model {
  readonly info: ModelInfo;
  private readonly client: OpenAI;
  private readonly budgetMs: number;

  constructor(private readonly options: OpenAIModelOptions) {
    const baseURL = options.baseURL ?? process.env['OPENAI_BASE_URL'];
    // Local servers (Ollama, llama.cpp) ignore the key, but the client insists on one.
    const apiKey = options.apiKey ?? process.env['OPENAI_API_KEY'] ?? 'not-needed';
    this.budgetMs = options.timeoutMs ?? 300_000;
    // Retries are ours (src/provider): within the task's budget, honouring Retry-After, at adaptive concurrency.
    this.client = new OpenAI({
      apiKey,
      baseURL,
      maxRetries: 0,
      // node:http with keep-alive costs a third of undici's CPU per request (docs/performance.md).
      fetch: providerFetch(() => ({ deadline: Date.now() + this.budgetMs, limiter: options.limiter, acceptBody: isChatCompletion }), nodeHttpFetch),
    });
    this.info = { provider: 'openai', mode: 'live', model: options.model, base_url: this.client.baseURL };
  }

  async complete(request: ModelRequest, ctx: ModelCallContext): Promise<ModelReply> {
    const deadline = (ctx.deadline ?? Date.now() + this.budgetMs) - GRACE_MS;
    // The client adds an abort listener per request and never removes it: give it a signal of this
    // call's own, so a long agent loop does not pile listeners onto the task's signal.
    const call = new AbortController();
    const forward = () => call.abort(ctx.signal.reason);
    if (ctx.signal.aborted) call.abort(ctx.signal.reason);
    else ctx.signal.addEventListener('abort', forward, { once: true });
    const provider = providerCall({ deadline, signal: call.signal, limiter: this.options.limiter, acceptBody: isChatCompletion, park: ctx.park });
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        {
          model: request.model,
          messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
          ...(request.tools.length > 0 ? { tools: request.tools, tool_choice: openAIToolChoice(request.toolChoice) } : {}),
          ...(request.tools.length > 0 && typeof request.parallelToolCalls === 'boolean' ? { parallel_tool_calls: request.parallelToolCalls } : {}),
          ...(request.temperature === null ? {} : { temperature: request.temperature }),
        },
        // The client's own timer must never fire before our budget does; the budget rides in fetchOptions.
        { signal: call.signal, timeout: Math.max(1, deadline - Date.now()) + 60_000, fetchOptions: providerCallInit(provider) },
      );
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      const detail = provider.failure?.message ?? (error instanceof Error ? error.message : String(error));
      throw new ModelError('PROVIDER_ERROR', `task ${ctx.taskId}, step ${ctx.step}: ${detail}`, { cause: error });
    } finally {
      ctx.signal.removeEventListener('abort', forward);
    }
    const choice = completion.choices[0];
    if (!choice) {
      throw new ModelError('PROVIDER_ERROR', `task ${ctx.taskId}, step ${ctx.step}: response had no choices`);
    }
    const message = choice.message;
    return {
      content: message.content ?? null,
      refusal: message.refusal ?? null,
      toolCalls: (message.tool_calls ?? []).flatMap((call, i) =>
        call.type === 'function'
          ? // Some OpenAI-compatible servers omit ids or arguments; results must still pair with calls.
            [{ id: call.id || `call_${ctx.step}_${i + 1}`, name: call.function.name, arguments: call.function.arguments ?? '' }]
          : [],
      ),
      usage: {
        input_tokens: completion.usage?.prompt_tokens ?? 0,
        output_tokens: completion.usage?.completion_tokens ?? 0,
      },
      finishReason: choice.finish_reason ?? null,
      providerRetries: provider.faults.length,
    };
  }
}

function openAIToolChoice(choice: ModelRequest['toolChoice']): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption {
  if (choice === undefined) return 'auto';
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
