import OpenAI from 'openai';
import type { ModelInfo } from '../../src/schema/trace.js';
import { nodeHttpFetch } from './nodeHttpFetch.js';
import { ModelError, type Model, type ModelCallContext, type ModelReply, type ModelRequest } from './types.js';

export interface OpenAIModelOptions {
  model: string;
  baseURL?: string | undefined;
  apiKey?: string | undefined;
  /** Retries on connection errors, 408/409/429 and 5xx, with the client's own backoff. */
  maxRetries?: number;
  timeoutMs?: number;
}

/** Any OpenAI-compatible chat-completions endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LiteLLM. */
export class OpenAIModel implements Model {
  readonly info: ModelInfo;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIModelOptions) {
    const baseURL = options.baseURL ?? process.env['OPENAI_BASE_URL'];
    // Local servers (Ollama, llama.cpp) ignore the key, but the client insists on one.
    const apiKey = options.apiKey ?? process.env['OPENAI_API_KEY'] ?? 'not-needed';
    this.client = new OpenAI({
      apiKey,
      baseURL,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 120_000,
      fetch: nodeHttpFetch,
    });
    this.info = { provider: 'openai', mode: 'live', model: options.model, base_url: this.client.baseURL };
  }

  async complete(request: ModelRequest, ctx: ModelCallContext): Promise<ModelReply> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        {
          model: request.model,
          messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
          ...(request.tools.length > 0 ? { tools: request.tools, tool_choice: 'auto' as const } : {}),
          ...(request.temperature === null ? {} : { temperature: request.temperature }),
        },
        { signal: ctx.signal },
      );
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      throw new ModelError('PROVIDER_ERROR', `task ${ctx.taskId}, step ${ctx.step}: ${this.client.baseURL}: ${detail}`);
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
    };
  }
}
