import { patternRedactor, type Redactor } from '../../src/schema/redact.js';
import { requestHash } from './requestHash.js';
import type { ModelRequest } from './types.js';

/**
 * A recording stores the model's replies redacted, and a replay sends those redacted replies back
 * in the next request; so a recording is keyed by the request as redacted, and a replay looks its
 * request up the same way (the capture proxy keys its recordings so too). Without this, a reply
 * holding anything the redactor takes (`api_key = os.environ[…]` in code the model writes,
 * `password: …` in its prose) made every later step of the replay a CASSETTE_MISS.
 */
export function cassetteKey(request: ModelRequest, redactor: Redactor): string {
  return requestHash({
    ...request,
    messages: request.messages.map((m) =>
      m.role === 'assistant'
        ? {
            ...m,
            content: m.content === null ? null : redactor.text(m.content),
            ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ ...c, function: { name: redactor.text(c.function.name), arguments: redactedArguments(c.function.arguments, redactor) } })) } : {}),
          }
        : // Text no recording stored (prompts, tool results) sees only the fixed patterns: the recording
          // machine's environment values in it would key it differently on every other machine.
          { ...m, content: patternRedactor.text(m.content) },
    ),
  });
}

const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * Tool-call arguments redacted so that valid JSON stays valid JSON: redacting the raw text can cut a
 * string literal at an escaped quote (`"api_key = os.environ[\"KEY\"]"`), and a replay would then
 * refuse arguments the live run accepted. Only then is each string literal redacted on its own.
 */
export function redactedArguments(text: string, redactor: Redactor): string {
  const whole = redactor.text(text);
  if (whole === text || !parses(text) || parses(whole)) return whole;
  const byLiteral = text.replace(JSON_STRING, (literal) => {
    const value = JSON.parse(literal) as string;
    const redacted = redactor.text(value);
    return redacted === value ? literal : JSON.stringify(redacted);
  });
  // Then the whole text again, for what spans literals (`"password": "…"`); a secret is never kept
  // for the sake of valid JSON.
  const again = redactor.text(byLiteral);
  return parses(again) ? again : whole;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
