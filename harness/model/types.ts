import { TracegateError } from '../../src/schema/runError.js';
import type { ModelInfo } from '../../src/schema/trace.js';

/** The chat messages the loop keeps; structurally the OpenAI chat-completions message params. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCallMessage[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ToolCallMessage {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean };
}

/** OpenAI `tool_choice`: let the model decide, force a tool call, forbid one, or force one named tool. */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  temperature: number | null;
  /** Absent: `auto`. */
  toolChoice?: ToolChoice;
  /** Absent or null: the provider's default. */
  parallelToolCalls?: boolean | null;
}

export interface ModelReply {
  content: string | null;
  refusal: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  usage: { input_tokens: number; output_tokens: number };
  finishReason: string | null;
  /** Provider faults absorbed by retries before this reply (live models only). */
  providerRetries?: number;
}

export interface ModelCallContext {
  taskId: string;
  /** 1-based model turn. */
  step: number;
  signal: AbortSignal;
  /** Epoch ms by which the task must end: provider retries stay within it. */
  deadline?: number | undefined;
  /** Awaits a provider's backoff without holding the task's work slot. */
  park?: (<T>(wait: Promise<T>) => Promise<T>) | undefined;
}

/** One small contract for every provider: who it is, and one call. */
export interface Model {
  readonly info: ModelInfo;
  complete(request: ModelRequest, ctx: ModelCallContext): Promise<ModelReply>;
}

/** A fault of the model provider (outage after retries, cassette miss): the run cannot be judged. */
export class ModelError extends TracegateError {
  declare readonly code: 'PROVIDER_ERROR' | 'CASSETTE_MISS' | 'CASSETTE_INVALID';
  constructor(code: 'PROVIDER_ERROR' | 'CASSETTE_MISS' | 'CASSETTE_INVALID', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
