import type { AttributeValue, Span, Trace } from '../../src/schema/trace.js';
import type { Task } from '../../src/schema/task.js';

/** Builds traces by hand for check and classifier tests: no harness, no model. */
export class TraceBuilder {
  private spans: Span[] = [];
  private step = 0;
  private counter = 0;
  private answer: string | null = null;
  private exit: Trace['final_answer']['exit_reason'] = 'completed';

  constructor(private readonly taskId = 'task_1') {
    this.spans.push(this.span('agent', 'task', null, {}));
  }

  private span(kind: Span['kind'], name: string, parent: string | null, attributes: Record<string, AttributeValue>): Span {
    return {
      span_id: `s${++this.counter}`,
      parent_id: parent,
      kind,
      name,
      start: '2026-01-01T00:00:00.000Z',
      end: '2026-01-01T00:00:01.000Z',
      status: 'ok',
      attributes,
      events: [],
    };
  }

  llm(): this {
    this.step++;
    this.spans.push(this.span('llm', 'chat', 's1', { step: this.step }));
    return this;
  }

  tool(
    name: string,
    args: Record<string, unknown>,
    outcome: { ok?: boolean; error_type?: string; decision?: 'allow' | 'deny' | 'require_approval'; approved?: boolean | null; executed?: boolean; recoverable?: boolean; call_id?: string; result?: string } = {},
  ): this {
    const ok = outcome.ok ?? outcome.error_type === undefined;
    const decision = outcome.decision ?? 'allow';
    this.spans.push(
      this.span('tool', `tool ${name}`, 's1', {
        step: this.step,
        'tool.name': name,
        'tool.call_id': outcome.call_id ?? `c${this.counter}`,
        'tool.arguments': JSON.stringify(args),
        policy_decision: decision,
        risk_level: 'low',
        risk_reason: 'test',
        approval_required: decision === 'require_approval',
        approved: outcome.approved ?? null,
        executed: outcome.executed ?? decision === 'allow',
        'result.ok': ok,
        error_type: outcome.error_type ?? null,
        recoverable: outcome.recoverable ?? !ok,
        ...(outcome.result !== undefined ? { 'result.preview': outcome.result } : {}),
      }),
    );
    return this;
  }

  /** `callIds`: the tool calls whose results it summarized (the harness records them). */
  compression(before: number, after: number, callIds?: string[]): this {
    this.spans.push(this.span('compression', 'compress', 's1', { step: this.step + 1, chars_before: before, chars_after: after, compressed_results: callIds?.length ?? 2, ...(callIds ? { compressed_call_ids: callIds } : {}) }));
    return this;
  }

  final(text: string | null, exit: Trace['final_answer']['exit_reason'] = 'completed'): this {
    this.answer = text;
    this.exit = exit;
    return this;
  }

  build(): Trace {
    return {
      schema_version: 'trace/v1',
      trace_id: 't1',
      task_id: this.taskId,
      epoch: 0,
      started_at: '2026-01-01T00:00:00.000Z',
      ended_at: '2026-01-01T00:00:02.000Z',
      model: { provider: 'cassette', mode: 'scripted', model: 'test', base_url: null },
      final_answer: { text: this.answer, exit_reason: this.exit },
      error: null,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      spans: this.spans,
    };
  }
}

export function makeTask(overrides: Partial<Task> = {}): Task {
  return {
    id: 'task_1',
    source: { file: 'suite.jsonl', line: 1 },
    prompt: 'do it',
    toolCall: null,
    workspace: '/tmp/ws',
    maxSteps: 10,
    timeoutMs: null,
    tags: [],
    checks: [],
    fingerprint: 'f',
    ...overrides,
  };
}
