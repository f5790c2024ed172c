import type { CheckResult, Evidence, FailureReason, Layer } from '../schema/report.js';
import type { Task } from '../schema/task.js';
import type { Trace } from '../schema/trace.js';
import { RULES, UNKNOWN_RULE } from './rules.js';

export interface Classification {
  reason: FailureReason;
  layer: Layer;
  evidence: Evidence[];
}

/** The first rule of the ordered table that applies to a failed task names its reason and layer. */
export function classify(trace: Trace, checks: CheckResult[], task: Task): Classification {
  for (const rule of RULES) {
    const evidence = rule.match({ trace, checks, task });
    if (evidence) return { reason: rule.reason, layer: rule.layer, evidence };
  }
  return { reason: UNKNOWN_RULE.reason, layer: UNKNOWN_RULE.layer, evidence: UNKNOWN_RULE.match({ trace, checks, task }) ?? [] };
}
