import type { CheckResult, Evidence, FailureReason, Layer } from '../../schema/report.js';
import type { Task } from '../../schema/task.js';
import type { Trace } from '../../schema/trace.js';
import { customLayer } from '../checks/outcomeChecks.js';
import { LayerSchema } from '../../schema/taxonomy.js';
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
    if (!evidence) continue;
    if (rule.reason === 'CUSTOM_CHECK_FAILED') {
      // A custom check may name the layer at fault in its check-output/v1.
      const spec = task.checks.find((c) => c.type === 'custom' && checks.some((r) => r.type === 'custom' && !r.passed));
      const named = LayerSchema.safeParse(spec ? customLayer(trace, spec) : null);
      return { reason: rule.reason, layer: named.success ? named.data : rule.layer, evidence };
    }
    return { reason: rule.reason, layer: rule.layer, evidence };
  }
  return { reason: UNKNOWN_RULE.reason, layer: UNKNOWN_RULE.layer, evidence: UNKNOWN_RULE.match({ trace, checks, task }) ?? [] };
}
