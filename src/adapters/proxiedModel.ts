import type { ModelInfo } from '../schema/trace.js';

/** The model of a live proxied run with no --model, until the proxy has seen the agent name one. */
export const MODEL_CHOSEN_BY_AGENT = 'chosen by the agent';

/**
 * The model a live proxied run used, as the capture proxy saw it in the agent's requests, when the
 * command line named none (`gpt-4o-mini`, or `a, b` for an agent that called two). A model named
 * with --model, cassettes and no model at all are shown as they are.
 */
export function proxiedModel(info: ModelInfo, named: string | null, seen: Iterable<string>): ModelInfo {
  if (named || (info.mode !== 'live' && info.mode !== 'recording')) return info;
  const models = [...new Set(seen)].sort();
  return { ...info, model: models.length > 0 ? models.join(', ') : MODEL_CHOSEN_BY_AGENT };
}
