import type { GateResult, GateRuleResult, GateRules } from '../schema/gate.js';
import { completeness } from '../report/completeness.js';
import { describeDrop, formatPoints } from '../statistics/dropFigure.js';
import type { RunReport } from '../schema/report.js';

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const fraction = (side: { trials?: { passed: number; judged: number } } | null) => (side?.trials ? `${side.trials.passed}/${side.trials.judged}` : '?');

/**
 * The rules in force when none are given. With a baseline: no task whose own fall is beyond noise,
 * no significant drop of the suite, no errored trial — together they fail an A/A run of a noisy
 * agent at most alpha of the time. Without one there is nothing to tell noise from: every task
 * passes and none errors (a suite without a baseline is a specification).
 */
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
  if (s.trials > 0 && s.passed + s.failed === 0) {
    results.push({ rule: 'trials_judged', passed: false, expected: 'at least one judged trial', actual: `every one of ${s.trials} trials errored` });
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
      // Paired tasks whose pass fraction fell: beyond noise by their own test, or they only moved.
      const fell = diff.tasks.filter((t) => t.drop_p !== undefined && t.baseline && t.current && (t.current.pass_fraction ?? 0) < (t.baseline.pass_fraction ?? 0));
      const beyond = fell.filter((t) => t.beyond_noise);
      const moved = fell.filter((t) => !t.beyond_noise);
      const list = (ts: typeof fell) => ts.map((t) => `${t.id} (${fraction(t.baseline)} → ${fraction(t.current)}, p=${t.drop_p! < 1e-3 ? t.drop_p!.toExponential(1) : t.drop_p!.toPrecision(2)})`).slice(0, 10).join(', ');
      results.push({
        rule: 'max_regressions',
        passed: beyond.length <= rules.max_regressions,
        expected: `<= ${rules.max_regressions} beyond noise`,
        actual: `${beyond.length} beyond noise, ${moved.length} only moved`,
        ...(fell.length ? { detail: [beyond.length ? `beyond noise: ${list(beyond)}` : '', moved.length ? `only moved (within noise): ${list(moved)}` : ''].filter(Boolean).join('; ') } : {}),
      });
    }
  }
  if (rules.max_tasks_down !== undefined) {
    if (!diff) results.push(needsBaseline('max_tasks_down'));
    else {
      const down = diff.tasks.filter((t) => t.change === 'regressed' && !t.definition_changed);
      results.push({
        rule: 'max_tasks_down',
        passed: down.length <= rules.max_tasks_down,
        expected: `<= ${rules.max_tasks_down} tasks from pass to fail`,
        actual: String(down.length),
        ...(down.length ? { detail: down.map((t) => `${t.id} (${t.current?.failure_reason}, ${t.current?.failure_layer})`).slice(0, 10).join(', ') } : {}),
      });
    }
  }
  // The comparison itself, when nothing could be paired, is no evidence that nothing regressed. One
  // shard of a CI matrix may hold only tasks added since the baseline: merge compares the whole run.
  const shardOfMany = report.run.shard !== null && report.run.shard !== undefined && report.run.shard.total > 1 && !report.run.merged_from;
  const unpaired = (rule: string): GateRuleResult =>
    shardOfMany
      ? { rule, passed: true, expected: 'at least one paired task', actual: 'no paired task in this shard', detail: 'this shard holds only tasks the baseline does not; tracegate merge compares the whole run' }
      : {
          rule,
          passed: false,
          expected: 'at least one paired task',
          actual: 'no paired task',
          detail: 'no task was judged in both runs with an unchanged definition (every one is new, removed, redefined or errored): there is nothing to compare',
        };
  if (rules.max_drop !== undefined) {
    if (!diff) results.push(needsBaseline('max_drop'));
    else if (!diff.significance) results.push(unpaired('max_drop'));
    else {
      // The drop: the paired test's own estimate, the one figure every report prints, checked as
      // printed (to a tenth of a point) so that a printed "drop 17.0" never fails --max-drop 17%.
      const printed = formatPoints(-diff.significance.delta);
      results.push({ rule: 'max_drop', passed: Number(printed) <= rules.max_drop * 100 + 1e-9, expected: `drop <= ${(rules.max_drop * 100).toFixed(1)} points`, actual: `drop ${printed} points` });
    }
  }
  if (rules.max_cost_increase !== undefined) {
    const cost = diff?.metrics.find((m) => m.name === 'cost_per_trial_usd');
    const limit = `cost per trial <= baseline + ${pct(rules.max_cost_increase)}`;
    if (!diff) results.push(needsBaseline('max_cost_increase'));
    else if (!cost || cost.baseline === null || cost.current === null) {
      results.push({ rule: 'max_cost_increase', passed: false, expected: limit, actual: 'cost unknown', detail: 'the baseline or this run has no cost: its model is not in the price table' });
    } else {
      const rise = cost.baseline === 0 ? (cost.current > 0 ? Infinity : 0) : (cost.current - cost.baseline) / cost.baseline;
      const usd = (v: number) => `$${v.toPrecision(4)}`;
      results.push({ rule: 'max_cost_increase', passed: rise <= rules.max_cost_increase + 1e-12, expected: limit, actual: `${usd(cost.baseline)} → ${usd(cost.current)} (${Number.isFinite(rise) ? `${rise >= 0 ? '+' : ''}${(rise * 100).toFixed(1)}%` : 'from zero'})`, ...(cost.note ? { detail: cost.note } : {}) });
    }
  }
  if (rules.no_significant_regression) {
    if (!diff) results.push(needsBaseline('no_significant_regression'));
    else if (!diff.significance) results.push(unpaired('no_significant_regression'));
    else {
      const sig = diff.significance;
      results.push({
        rule: 'no_significant_regression',
        passed: sig.verdict !== 'regressed',
        expected: `no significant drop (alpha ${sig.alpha})`,
        actual: `${sig.verdict}, ${describeDrop(sig)}`,
      });
    }
  }
  return { passed: results.every((r) => r.passed), rules, source, results };
}
