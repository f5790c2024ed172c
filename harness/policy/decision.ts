import type { ErrorType, PolicyDecision, RiskLevel } from '../../src/schema/trace.js';

/** A policy decision that names the rule behind it. */
export interface Decision {
  decision: PolicyDecision;
  risk: RiskLevel;
  /** The id of the rule that decided, e.g. `allow-list`, `network-access`, `path-outside-workspace`. */
  rule: string;
  reason: string;
  /** What a refusal of this call is reported as. */
  errorType: ErrorType | null;
  /**
   * Every rule that asked for approval, the deciding one first (a command with `rm` and `python3`
   * asks under both `delete` and `code-interpreter`): an approval "always for this rule" must
   * cover all of them, not only the first.
   */
  asks?: string[];
}

/** How strong the sandbox a command will run in is: a process group, or an isolated one (bubblewrap). */
export type SandboxKind = 'process' | 'isolated';

const SEVERITY: Record<PolicyDecision, number> = { allow: 0, require_approval: 1, deny: 2 };
const RISK_ORDER: Record<RiskLevel, number> = { low: 0, medium: 1, high: 2 };

export const allow = (rule: string, reason: string, risk: RiskLevel = 'low'): Decision => ({
  decision: 'allow', risk, rule, reason, errorType: null,
});
export const deny = (rule: string, reason: string, errorType: ErrorType = 'COMMAND_BLOCKED'): Decision => ({
  decision: 'deny', risk: 'high', rule, reason, errorType,
});
export const ask = (rule: string, reason: string, risk: RiskLevel = 'high'): Decision => ({
  decision: 'require_approval', risk, rule, reason, errorType: 'APPROVAL_DENIED',
});

/**
 * The strictest decision wins; among refusals of one kind, the first found (it names the earliest
 * cause); among allows, the one with the highest risk (the rule that let the riskiest part through).
 */
export function strictest(decisions: Decision[]): Decision {
  let worst: Decision | undefined;
  let risk: RiskLevel = 'low';
  const asks: string[] = [];
  for (const d of decisions) {
    const riskier = d.decision === 'allow' && worst?.decision === 'allow' && RISK_ORDER[d.risk] > RISK_ORDER[worst.risk];
    if (!worst || SEVERITY[d.decision] > SEVERITY[worst.decision] || riskier) worst = d;
    if (RISK_ORDER[d.risk] > RISK_ORDER[risk]) risk = d.risk;
    if (d.decision === 'require_approval') for (const rule of d.asks ?? [d.rule]) if (!asks.includes(rule)) asks.push(rule);
  }
  if (!worst) return allow('empty-command', 'nothing to run');
  const { asks: _own, ...decided } = worst;
  return { ...decided, risk: worst.decision === 'allow' ? risk : worst.risk, ...(worst.decision === 'require_approval' ? { asks } : {}) };
}
