import { z } from 'zod';
import { llmAttr, llmSpans, type Trace } from '../../schema/trace.js';

/** USD per million tokens. cached_input: the price of a prompt token served from the provider's cache. */
export interface ModelPrice {
  input: number;
  cached_input: number;
  output: number;
}

export interface PriceTable {
  /** When the prices were read (YYYY-MM-DD); reports print it next to every cost. */
  as_of: string;
  source: string;
  /** Model name (or its prefix: "gpt-4o" prices "gpt-4o-2024-08-06") to price. */
  models: Record<string, ModelPrice>;
}

/**
 * The shipped table: list prices for standard (non-batch) requests, short prompts (Gemini's
 * ≤200k-token tier), transcribed from the providers' public pricing pages (openai.com/api/pricing,
 * anthropic.com/pricing, ai.google.dev/gemini-api/docs/pricing, api-docs.deepseek.com pricing, and
 * Together AI's page for open-weight models) as they stood at the date below; they were not fetched
 * by a program, so check a price that matters against its page. Prices change: give your own
 * table with --price-table or the suite header's price_table (same shape, see docs/cost.md).
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  as_of: '2025-08-01',
  source: 'tracegate built-in table (providers\' public list prices)',
  models: {
    'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 },
    'gpt-5-mini': { input: 0.25, cached_input: 0.025, output: 2 },
    'gpt-5-nano': { input: 0.05, cached_input: 0.005, output: 0.4 },
    'gpt-4.1': { input: 2, cached_input: 0.5, output: 8 },
    'gpt-4.1-mini': { input: 0.4, cached_input: 0.1, output: 1.6 },
    'gpt-4.1-nano': { input: 0.1, cached_input: 0.025, output: 0.4 },
    'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 },
    'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6 },
    o3: { input: 2, cached_input: 0.5, output: 8 },
    'o4-mini': { input: 1.1, cached_input: 0.275, output: 4.4 },
    'claude-opus-4': { input: 15, cached_input: 1.5, output: 75 },
    'claude-sonnet-4': { input: 3, cached_input: 0.3, output: 15 },
    'claude-3-7-sonnet': { input: 3, cached_input: 0.3, output: 15 },
    'claude-3-5-haiku': { input: 0.8, cached_input: 0.08, output: 4 },
    'gemini-2.5-pro': { input: 1.25, cached_input: 0.31, output: 10 },
    'gemini-2.5-flash': { input: 0.3, cached_input: 0.075, output: 2.5 },
    'gemini-2.0-flash': { input: 0.1, cached_input: 0.025, output: 0.4 },
    'deepseek-chat': { input: 0.27, cached_input: 0.07, output: 1.1 },
    'deepseek-reasoner': { input: 0.55, cached_input: 0.14, output: 2.19 },
    'gpt-oss-120b': { input: 0.15, cached_input: 0.15, output: 0.6 },
    'llama-3.3-70b': { input: 0.88, cached_input: 0.88, output: 0.88 },
    'llama-3.1-8b': { input: 0.18, cached_input: 0.18, output: 0.18 },
    'qwen3-235b-a22b': { input: 0.2, cached_input: 0.2, output: 0.6 },
  },
};

let active: PriceTable = DEFAULT_PRICE_TABLE;

/** The table cost is computed with (the shipped one unless a run gave its own). */
export function activePriceTable(): PriceTable {
  return active;
}

/** A run's --price-table (or its suite header's) replaces the shipped table for the whole run. */
export function usePriceTable(table: PriceTable | null): void {
  active = table ?? DEFAULT_PRICE_TABLE;
}

/** The entry for `model`: exact name, else the longest listed prefix ("openai/" and similar vendor prefixes dropped). */
export function priceOf(model: string, table: PriceTable = active): { name: string; price: ModelPrice } | null {
  const bare = model.trim().toLowerCase();
  const candidates = [bare, bare.includes('/') ? bare.slice(bare.lastIndexOf('/') + 1) : null].filter((c): c is string => c !== null);
  for (const name of candidates) {
    const exact = table.models[name];
    if (exact) return { name, price: exact };
    const prefix = Object.keys(table.models)
      .filter((k) => name.startsWith(`${k}-`) || name.startsWith(`${k}:`) || name.startsWith(`${k}@`))
      .sort((a, b) => b.length - a.length)[0];
    if (prefix) return { name: prefix, price: table.models[prefix]! };
  }
  return null;
}

export interface TraceCost {
  usd: number;
  model: string;
  priced_as: string;
  as_of: string;
}

/**
 * The trace's model cost: each model call's tokens at its model's price (traces record no cached
 * count yet, so every prompt token is priced as input). Null when the model is not in the table.
 */
export function traceCost(trace: Trace, table: PriceTable = active): TraceCost | null {
  const hit = priceOf(trace.model.model, table);
  if (!hit) return null;
  const spans = llmSpans(trace);
  const input = spans.length > 0 ? spans.reduce((n, s) => n + llmAttr(s).inputTokens, 0) : trace.usage.input_tokens;
  const output = spans.length > 0 ? spans.reduce((n, s) => n + llmAttr(s).outputTokens, 0) : trace.usage.output_tokens;
  const usd = (input * hit.price.input + output * hit.price.output) / 1_000_000;
  return { usd, model: trace.model.model, priced_as: hit.name, as_of: table.as_of };
}

const PriceSchema = z.strictObject({ input: z.number().finite().nonnegative(), cached_input: z.number().finite().nonnegative().optional(), output: z.number().finite().nonnegative() });
export const PriceTableFileSchema = z.strictObject({
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'as_of is the date the prices were read, YYYY-MM-DD'),
  source: z.string().optional(),
  models: z.record(z.string().min(1), PriceSchema),
});

/**
 * A price table file (--price-table or the suite header's price_table): the same shape as the
 * shipped table. It replaces the shipped table whole, so every cost in a run has one date.
 * Problems are returned as "field F: message" for the caller's file error.
 */
export function parsePriceTable(text: string): { table: PriceTable } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `invalid JSON: ${(error as Error).message}` };
  }
  const parsed = PriceTableFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `${issue.path.length ? `field ${issue.path.join('.')}: ` : ''}${issue.message}` };
  }
  const { as_of, source, models } = parsed.data;
  return {
    table: {
      as_of,
      source: source ?? 'a price table file',
      models: Object.fromEntries(Object.entries(models).map(([name, p]) => [name.toLowerCase(), { input: p.input, cached_input: p.cached_input ?? p.input, output: p.output }])),
    },
  };
}
