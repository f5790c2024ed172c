import { anthropicMessages } from './anthropicMessages.js';
import { chatCompletions } from './chatCompletions.js';
import { gemini } from './gemini.js';
import { responses } from './responses.js';
import type { Protocol, ProtocolRoute } from './protocol.js';

export type { NormalizedRequest, Protocol, ProtocolId, ProtocolRoute, StreamFolder, UpstreamFamily } from './protocol.js';

/** Every protocol the capture proxy speaks, in the order routes are matched. */
export const PROTOCOLS: readonly Protocol[] = [chatCompletions, responses, anthropicMessages, gemini];

export function matchProtocol(method: string, route: string, query: URLSearchParams): { protocol: Protocol; route: ProtocolRoute } | null {
  for (const protocol of PROTOCOLS) {
    const matched = protocol.match(method, route, query);
    if (matched) return { protocol, route: matched };
  }
  return null;
}

/** APIs the proxy knows by their routes but does not proxy, so a refusal can name what the agent called. */
const KNOWN_APIS: Array<[RegExp, string]> = [
  [/\/chat\/completions$/, 'the OpenAI Chat Completions API'],
  [/\/responses(\/.*)?$/, 'the OpenAI Responses API'],
  [/\/embeddings$/, 'the OpenAI Embeddings API'],
  [/\/completions$/, 'the legacy OpenAI Completions API'],
  [/\/(audio|images|files|batches|assistants|threads|realtime|vector_stores|moderations)(\/.*)?$/, 'an OpenAI API other than chat completions and responses'],
  [/\/messages(\/.*)?$/, 'the Anthropic Messages API'],
  [/\/complete$/, 'the legacy Anthropic Text Completions API'],
  [/\/models\/[^/]+:[A-Za-z]+$/, 'the Gemini API'],
  [/\/api\/(chat|generate|tags)$/, 'the Ollama API'],
  [/\/converse(-stream)?$|\/invoke(-with-response-stream)?$/, 'the AWS Bedrock runtime API'],
];

/** What an agent called, named for a run error: "POST /v1/messages — the Anthropic Messages API —". */
export function describeCall(method: string, route: string): string {
  const api = KNOWN_APIS.find(([pattern]) => pattern.test(route))?.[1];
  return `${method} ${route || '/'}${api ? ` — ${api} —` : ''}`;
}

/** The protocols as a sentence for messages: what the proxy does speak. */
export const SPOKEN =
  'OpenAI Chat Completions (POST …/v1/chat/completions), OpenAI Responses (POST …/v1/responses), Anthropic Messages (POST /v1/messages, count_tokens) and Gemini (POST /v1beta/models/{model}:generateContent, :streamGenerateContent, :countTokens)';
