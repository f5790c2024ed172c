import type { GateResult, GateRuleResult, GateRules } from '../schema/gate.js';
import { completeness } from '../report/completeness.js';
import type { RunReport } from '../schema/report.js';

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);

/** The rules in force when none are given: with a baseline, no regressions; without, everything passes. */
export function defaultRules(hasBaseline: boolean): GateRules {
  return hasBaseline ? { max_regressions: 0, max_error_rate: 0, no_significant_regression: true } : { min_pass_rate: 1, max_error_rate: 0 };
}

/** Turns rules and a report (with its diff, if any) into per-rule verdicts. Pure. */
export function evaluateGate(report: RunReport, rules: GateRules, source: string): GateResult {
  const results: GateRuleResult[] = [];
  const s = report.summary;
  const diff = report.diff;
  const whole = completeness(report);
  if (!whole.complete) {
    results.push({ rule: 'run_complete', passed: false, expected: 'every planned trial ran', actual: whole.notice!.split(';')[0]! });
  }
  const needsBaseline = (rule: string): GateRuleResult => ({ rule, passed: false, expected: 'a baseline', actual: 'none', detail: `${rule} needs --baseline or compare` });

  if (rules.min_pass_rate !== undefined) {
    results.push({
      rule: 'min_pass_rate',
      passed: s.pass_rate !== null && s.pass_rate >= rules.min_pass_rate,
      expected: `>= ${pct(rules.min_pass_rate)}`,
      actual: pct(s.pass_rate),
    });
  }
  if (rules.max_error_rate !== undefined) {
    results.push({ rule: 'max_error_rate', passed: s.error_rate <= rules.max_error_rate, expected: `<= ${pct(rules.max_error_rate)}`, actual: `${pct(s.error_rate)} (${s.errored} errored)` });
  }
  if (rules.must_pass_tags !== undefined) {
    for (const tag of rules.must_pass_tags) {
      const tagged = report.tasks.filter((t) => t.tags.includes(tag));
      const failing = tagged.filter((t) => t.status !== 'passed');
      results.push({
        rule: `must_pass_tag:${tag}`,
        passed: tagged.length > 0 && failing.length === 0,
        expected: 'every tagged task passes',
        actual: tagged.length === 0 ? 'no task has this tag' : `${tagged.length - failing.length}/${tagged.length} passed`,
        ...(failing.length ? { detail: failing.map((t) => t.id).slice(0, 10).join(', ') } : {}),
      });
    }
  }
  if (rules.max_regressions !== undefined) {
    if (!diff) results.push(needsBaseline('max_regressions'));
    else {
      const regressions = diff.tasks.filter((t) => t.change === 'regressed' && !t.definition_changed);
      results.push({
        rule: 'max_regressions',
        passed: regressions.length <= rules.max_regressions,
        expected: `<= ${rules.max_regressions}`,
        actual: String(regressions.length),
        ...(regressions.length ? { detail: regressions.map((t) => `${t.id} (${t.current?.failure_reason}, ${t.current?.failure_layer})`).slice(0, 10).join(', ') } : {}),
      });
    }
  }
  if (rules.max_drop !== undefined) {
    const paired = diff?.metrics.find((m) => m.name === 'paired_pass_rate');
    if (!diff || !paired) results.push(needsBaseline('max_drop'));
    else {
      const drop = paired.delta === null ? 0 : -paired.delta;
      results.push({ rule: 'max_drop', passed: drop <= rules.max_drop + 1e-12, expected: `<= ${(rules.max_drop * 100).toFixed(1)} points`, actual: `${(drop * 100).toFixed(1)} points` });
    }
  }
  if (rules.no_significant_regression) {
    if (!diff) results.push(needsBaseline('no_significant_regression'));
    else {
      const sig = diff.significance;
      results.push({
        rule: 'no_significant_regression',
        passed: sig === null || sig.verdict !== 'regressed',
        expected: `no significant drop (alpha ${sig?.alpha ?? rules.alpha ?? 0.05})`,
        actual: sig ? `${sig.verdict}, Δ ${(sig.delta * 100).toFixed(1)} points [${(sig.ci_low * 100).toFixed(1)}, ${(sig.ci_high * 100).toFixed(1)}], p=${sig.p_value.toPrecision(3)}` : 'no paired tasks',
      });
    }
  }
  return { passed: results.every((r) => r.passed), rules, source, results };
}
