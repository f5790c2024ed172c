import { buildReport, taskResult } from '../../src/report/buildReport.js';
import type { FailureReason, Layer, RunReport, Trial } from '../../src/schema/report.js';
import { makeTask } from './traceBuilder.js';

export interface TaskSpec {
  id: string;
  /** One letter per epoch: p passed, f failed, e errored. */
  trials: string;
  reason?: FailureReason;
  layer?: Layer;
  fingerprint?: string;
  tags?: string[];
  steps?: number;
  /** One letter per epoch, c for a trial whose context was compressed (the rest did not). */
  compressed?: string;
}

function trial(epoch: number, letter: string, spec: TaskSpec): Trial {
  const status = letter === 'p' ? 'passed' : letter === 'f' ? 'failed' : 'errored';
  return {
    epoch,
    status,
    failure_reason: status === 'failed' ? (spec.reason ?? 'FINAL_ANSWER_INCOMPLETE') : null,
    failure_layer: status === 'failed' ? (spec.layer ?? 'model') : null,
    evidence: status === 'failed' ? [{ span_id: 's2', step: 1, detail: 'evidence' }] : [],
    checks: [],
    steps: spec.steps ?? 2,
    exit_reason: status === 'errored' ? 'error' : 'completed',
    duration_ms: 100,
    tokens: { input: 10, output: 5, total: 15 },
    tool_calls: 1,
    tool_errors: 0,
    recovered: false,
    trace_file: `traces/${spec.id}.e${epoch}.json`,
    answer_preview: 'x',
    ...(spec.compressed !== undefined ? { compressed: spec.compressed[epoch] === 'c' } : {}),
    error: status === 'errored' ? { code: 'PROVIDER_ERROR', message: 'down' } : null,
  };
}

/** A schema-valid report from a compact description of its tasks. */
export function makeReport(specs: TaskSpec[], epochs = specs[0]?.trials.length ?? 1): RunReport {
  const rows = specs.map((spec) =>
    taskResult(
      makeTask({ id: spec.id, tags: spec.tags ?? [], fingerprint: spec.fingerprint ?? 'same' }),
      [...spec.trials].map((letter, epoch) => trial(epoch, letter, spec)),
    ),
  );
  return buildReport(
    {
      id: 'run',
      started_at: '2026-01-01T00:00:00.000Z',
      ended_at: '2026-01-01T00:01:00.000Z',
      duration_ms: 60_000,
      tracegate_version: '0.1.0',
      suites: [{ path: 'suite.jsonl', tasks: specs.length, sha256: 'x' }],
      adapter: 'harness',
      model: { provider: 'cassette', mode: 'scripted', model: 'test', base_url: null },
      scripted: true,
      variant: null,
      policy: 'default',
      sandbox: 'process',
      epochs,
      concurrency: 1,
      shard: null,
      interrupted: false,
    },
    rows,
  );
}
