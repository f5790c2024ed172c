import { ERROR_TYPES, PolicyDecisionSchema, SpanKindSchema } from './trace.js';

/**
 * What an `event_type` check (`expected_event_type`) may name: a span kind, a span event that
 * tracegate's own trace producers write, an error type, a policy decision, or one of the seeds'
 * event names, each read as the trace/v1 fact it stands for.
 */
export const SEED_EVENT_ALIASES = {
  context_compressed: 'compression',
  llm_call: 'llm',
  model_call: 'llm',
  tool_call: 'tool',
  tool_result: 'tool',
  permission_denied: 'PERMISSION_DENIED',
  approval_required: 'require_approval',
} as const satisfies Record<string, string>;

/** Span events the harness and the external-agent adapter write (docs/traces.md). */
export const SPAN_EVENT_NAMES = ['empty_reply', 'tool_calls_capped', 'agent_crash', 'agent_timeout', 'agent_output_invalid'] as const;

/** The trace/v1 name an event-type check looks for: a seed alias is read as what it stands for. */
export function canonicalEventType(value: string): string {
  return Object.hasOwn(SEED_EVENT_ALIASES, value) ? SEED_EVENT_ALIASES[value as keyof typeof SEED_EVENT_ALIASES] : value;
}

const KNOWN = new Set<string>([
  ...SpanKindSchema.options,
  ...SPAN_EVENT_NAMES,
  ...ERROR_TYPES,
  ...PolicyDecisionSchema.options,
  ...Object.keys(SEED_EVENT_ALIASES),
]);

/** Every name tracegate knows a trace can carry; anything else is only met by an agent that writes it. */
export function isKnownEventType(value: string): boolean {
  return KNOWN.has(value);
}

export const KNOWN_EVENT_TYPES: readonly string[] = [...KNOWN];
