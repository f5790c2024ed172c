import type { ChatMessage } from '../../schema/agentIo.js';
import type { KeyedRequest } from '../../schema/requestKey.js';
import type { ChatReply } from '../chatReply.js';

/**
 * The contract every protocol front-end of the capture proxy keeps. A front-end knows one wire
 * protocol (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini): which routes are
 * its own, how a request reads as the normalized conversation (OpenAI chat messages, which the
 * spans, threads and cassette keys are built from), how a reply or an SSE stream folds into one
 * normalized reply (ChatReply: text, tool calls, usage, stop reason in the chat vocabulary), and
 * how a recorded reply is written back in the protocol, streamed or not. The proxy does the rest
 * (trial paths, keys, upstream retries, cassettes, run errors) the same way for all of them.
 */
export type ProtocolId = 'chat-completions' | 'responses' | 'anthropic-messages' | 'gemini';

/** The header that carries a key in the protocol: `Authorization: Bearer …`, `x-api-key`, `x-goog-api-key`. */
export type KeyHeader = 'authorization' | 'x-api-key' | 'x-goog-api-key';

/** Which upstream answers the protocol (both OpenAI protocols share one endpoint and key). */
export type UpstreamFamily = 'openai' | 'anthropic' | 'gemini';

export interface ProtocolRoute {
  /**
   * `generate`: a model call (traced, recorded, replayed); `count-tokens`, `models`: passed upstream,
   * or answered locally with no upstream; `probe`: a reachability check answered locally.
   */
  kind: 'generate' | 'count-tokens' | 'models' | 'probe';
  /** The path (query string included) sent after the upstream's base URL. */
  upstreamPath: string;
  /** The model, when the path names it (Gemini). */
  model?: string;
  /** The route itself asks for a stream (Gemini's streamGenerateContent). */
  streamed?: boolean;
  /** The reply to a streamed route is SSE (Gemini's `alt=sse`); otherwise a JSON array. */
  sse?: boolean;
}

/** A model request read into the normalized conversation. */
export interface NormalizedRequest {
  model: string;
  /** The conversation as OpenAI chat messages: tool results are `role: "tool"` messages paired by id. */
  messages: ChatMessage[];
  toolNames: string[];
  streamed: boolean;
  /** What the cassette key hashes: the conversation, the tools and the generation settings. */
  keyed: KeyedRequest;
  /** What the writer needs from the request (custom tool names, include_usage, SSE or not, …). */
  hints: Record<string, unknown>;
}

/** Folds one SSE stream of the protocol into one reply. */
export interface StreamFolder {
  /** One event's data (and name); returns the provider's error when the event is one. */
  add(data: string, event: string | null): string | null;
  /** The stream said it ended (a terminal event or a stop reason): one that did not was cut short. */
  complete(): boolean;
  reply(): ChatReply;
}

export interface WrittenReply {
  contentType: string;
  body: string;
}

export interface Protocol {
  id: ProtocolId;
  /** How messages name it: "the OpenAI Responses API". */
  label: string;
  keyHeader: KeyHeader;
  upstream: UpstreamFamily;
  /** Agent headers passed upstream with a call (API version, beta features, organization). */
  forwardedHeaders: readonly string[];
  /** The route this protocol serves, or null. `route`: the path after the trial's prefix, without the query. */
  match(method: string, route: string, query: URLSearchParams): ProtocolRoute | null;
  /** The request body read into the normalized conversation, or a sentence saying what is wrong with it. */
  read(body: unknown, route: ProtocolRoute): NormalizedRequest | string;
  /** A whole (non-streamed) reply body. */
  fold(body: unknown): ChatReply;
  /** The provider's error when a 2xx body is one. */
  errorOf(body: unknown): string | null;
  folder(): StreamFolder;
  /** A normalized reply written as the protocol answers `request`, streamed or not as it asked. */
  write(reply: ChatReply, request: NormalizedRequest, step: number): WrittenReply;
  /** The answer to a count-tokens route when there is no upstream (a rough estimate). */
  countTokens?(body: unknown): unknown;
  /** The proxy's own error as this API's clients read one; without it, the shape OpenAI's and Anthropic's clients both read. */
  errorBody?(status: number, message: string): unknown;
}

type Json = Record<string, unknown>;
export const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Arguments in one canonical text (an object's JSON), so a request's and a reply's forms of one call compare equal. */
export function canonicalArguments(value: unknown): string {
  if (value === undefined || value === null) return '{}';
  if (typeof value !== 'string') return JSON.stringify(value);
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed && typeof parsed === 'object' ? JSON.stringify(parsed) : value;
  } catch {
    return value;
  }
}

/** Arguments text as an object for protocols that carry objects (a malformed string kept under `_raw`). */
export function argumentsObject(text: string): Json {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : { _raw: text };
  } catch {
    return { _raw: text };
  }
}

/** A rough token count (4 characters a token) for count-tokens routes answered with no upstream. */
export const estimateTokens = (body: unknown): number => Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));

/** SSE frames with event names, as the Responses, Messages and Gemini endpoints send them. */
export const sseEvents = (events: Array<[string | null, unknown]>): string =>
  events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`).join('');
