import { createHash } from 'node:crypto';
import type { ModelRequest } from './types.js';

/**
 * The key of a recorded interaction. Tool-call ids are dropped (providers mint new ones on every
 * call) so that a replay matches the recording whenever the conversation itself is the same.
 */
export function requestHash(request: ModelRequest): string {
  const normalized = {
    model: request.model,
    temperature: request.temperature,
    tools: request.tools.map((t) => [t.function.name, t.function.description, t.function.parameters]),
    messages: request.messages.map((m) => {
      if (m.role === 'tool') return { role: m.role, content: m.content };
      if (m.role === 'assistant') {
        return {
          role: m.role,
          content: m.content ?? '',
          tool_calls: (m.tool_calls ?? []).map((c) => [c.function.name, c.function.arguments]),
        };
      }
      return { role: m.role, content: m.content };
    }),
  };
  return 'sha256:' + createHash('sha256').update(JSON.stringify(normalized)).digest('hex');
}
