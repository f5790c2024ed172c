import type { CaptureProxyOptions } from '../capture/captureProxy.js';

/**
 * The Anthropic and Gemini upstreams of a live run, from the usual variables: each only when its key
 * or base URL is set (otherwise a call in that protocol is NO_MODEL, naming the variables).
 */
export function otherUpstreams(env: Readonly<Record<string, string | undefined>>): NonNullable<CaptureProxyOptions['upstreams']> {
  const out: NonNullable<CaptureProxyOptions['upstreams']> = {};
  const anthropicKey = env['ANTHROPIC_API_KEY'] || null;
  if (anthropicKey || env['ANTHROPIC_BASE_URL']) out.anthropic = { baseUrl: env['ANTHROPIC_BASE_URL'] || 'https://api.anthropic.com', apiKey: anthropicKey, keyHeader: 'x-api-key' };
  const geminiKey = env['GEMINI_API_KEY'] || env['GOOGLE_API_KEY'] || null;
  if (geminiKey || env['GOOGLE_GEMINI_BASE_URL']) out.gemini = { baseUrl: env['GOOGLE_GEMINI_BASE_URL'] || 'https://generativelanguage.googleapis.com', apiKey: geminiKey, keyHeader: 'x-goog-api-key' };
  return out;
}
