import type { Command } from 'commander';
import { RUN_DEFAULTS } from '../schema/runDefaults.js';
import { nonNegativeInt, probability, rate } from './parsers.js';

/** The gate's flags, shared by every command that gates (run, compare, diff, score, merge). */
export interface GateFlags {
  baseline?: string;
  gate?: string;
  minPassRate?: number;
  maxDrop?: number;
  maxRegressions?: number;
  maxTasksDown?: number;
  mustPassTag?: string[];
  maxErrorRate?: number;
  significance?: boolean;
  alpha?: number;
  html: boolean;
}

/** What the gate asks when no rule is given, for the help of every command that gates (see defaultRules). */
export const GATE_HELP = `
Gate with no rule flags or --gate file (docs/statistics.md):
  with a baseline   fail on a task whose own fall is beyond noise (max_regressions 0; tasks that only
                    moved are listed, not counted), on a significant drop of the suite
                    (no_significant_regression) and on any errored trial
  without one       every task passes and no trial errors: a suite without a baseline is a specification
  --max-tasks-down 0  the literal rule for deterministic suites (policy tasks, cassettes): no task may
                    go from pass to fail, noise or not
  --max-drop 5%     checks the drop every report prints (the paired test's estimate)`;

export function addGateOptions(command: Command): Command {
  return command
    .option('-b, --baseline <file>', 'diff against this baseline report (e.g. baselines/demo.json)')
    .option('--gate <file>', 'gate rules JSON (min_pass_rate, max_drop, max_regressions, max_tasks_down, must_pass_tags, max_error_rate, no_significant_regression, alpha)')
    .option('--min-pass-rate <rate>', 'gate: lowest pass rate, a fraction 0..1 or a percentage: 0.8 or 80% (a bare number above 1 is refused)', rate)
    .option('--max-drop <rate>', 'gate: largest drop (the paired test\'s estimate, the figure every report prints) against the baseline, a fraction or a percentage: 0.05 or 5%', rate)
    .option('--max-regressions <n>', 'gate: most tasks whose own fall is beyond noise (exact per-task test, Benjamini–Hochberg over the suite)', nonNegativeInt)
    .option('--max-tasks-down <n>', 'gate: most tasks allowed to go from pass to fail, noise or not (for deterministic suites)', nonNegativeInt)
    .option('--must-pass-tag <tag...>', 'gate: every task with this tag must pass')
    .option('--max-error-rate <rate>', 'gate: largest share of errored trials, a fraction or a percentage: 0.05 or 5%', rate)
    .option('--significance', 'gate: fail on a statistically significant regression')
    .option('--alpha <p>', `significance level of the paired test, the per-task test and --epochs auto (default ${RUN_DEFAULTS.alpha})`, probability)
    .option('--no-html', 'do not write report.html');
}
