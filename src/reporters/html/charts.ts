import { describeDrop } from '../../statistics/dropFigure.js';
import type { StreamedReport } from '../../report/taskRows.js';
import { RATE_METRICS } from '../../schema/diff.js';
import { triageRows, triageText, type TriageDistribution } from '../triage.js';

/** A vega-lite spec as plain data (validated by vega-lite in the page). */
export type VegaLiteSpec = Record<string, unknown>;

export interface Chart {
  id: string;
  title: string;
  spec: VegaLiteSpec;
}

const LAYER_COLORS = { domain: ['model', 'tool', 'environment', 'harness', 'unknown'], range: ['#8e6bbf', '#d9822b', '#2b8fd9', '#c23b3b', '#888888'] };
const STATUS_COLORS = { domain: ['passed', 'failed', 'errored'], range: ['#2e9e5b', '#c23b3b', '#999999'] };
const base = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', width: 'container', height: 220, config: { view: { stroke: null } } };

function passRateByTag(report: StreamedReport): Chart {
  const s = report.summary;
  const rows = [
    { group: 'all tasks', pass_rate: s.pass_rate ?? 0, passed: s.passed, judged: s.passed + s.failed },
    ...Object.entries(s.by_tag).map(([tag, t]) => ({ group: `#${tag}`, pass_rate: t.pass_rate ?? 0, passed: t.passed, judged: t.total })),
  ];
  return {
    id: 'pass-rate',
    title: 'Pass rate, overall and by tag',
    spec: {
      ...base,
      data: { values: rows },
      mark: { type: 'bar', tooltip: true },
      encoding: {
        y: { field: 'group', type: 'nominal', sort: null, title: null },
        x: { field: 'pass_rate', type: 'quantitative', scale: { domain: [0, 1] }, axis: { format: '%' }, title: 'pass rate' },
        color: { condition: { test: "datum.group === 'all tasks'", value: '#1f5f99' }, value: '#6fa8dc' },
        tooltip: [
          { field: 'group', title: 'group' },
          { field: 'pass_rate', format: '.1%', title: 'pass rate' },
          { field: 'passed', title: 'passed trials' },
          { field: 'judged', title: 'trials' },
        ],
      },
      height: { step: 18 },
    },
  };
}

type Point = { id: string; seconds: number; tokens: number; status: string };

/** What the per-trial and per-task charts count, in one pass over the rows (streamed rows are read once for all three). */
function rowCounts(report: StreamedReport) {
  const failures = new Map<string, { layer: string; reason: string; trials: number }>();
  const steps = new Map<string, { steps: number; status: string; trials: number }>();
  const points: Point[] = [];
  for (const t of report.tasks) {
    for (const trial of t.trials) {
      if (trial.status === 'failed' && trial.failure_layer && trial.failure_reason) {
        const key = `${trial.failure_layer}|${trial.failure_reason}`;
        const row = failures.get(key) ?? { layer: trial.failure_layer, reason: trial.failure_reason, trials: 0 };
        row.trials++;
        failures.set(key, row);
      }
      const key = `${trial.steps}|${trial.status}`;
      const row = steps.get(key) ?? { steps: trial.steps, status: trial.status, trials: 0 };
      row.trials++;
      steps.set(key, row);
    }
    points.push({ id: t.id, seconds: t.duration_ms / 1000 / t.trials.length, tokens: t.trials.reduce((s, x) => s + x.tokens.total, 0) / t.trials.length, status: t.status });
  }
  return { failures, steps, points };
}

function failuresByLayer(counts: ReturnType<typeof rowCounts>['failures']): Chart {
  return {
    id: 'failures',
    title: 'Failures by layer and reason',
    spec: {
      ...base,
      data: { values: [...counts.values()] },
      mark: { type: 'bar', tooltip: true },
      encoding: {
        x: { field: 'layer', type: 'nominal', scale: { domain: LAYER_COLORS.domain }, title: 'layer' },
        y: { field: 'trials', type: 'quantitative', aggregate: 'sum', title: 'failed trials', axis: { tickMinStep: 1, format: 'd' } },
        color: { field: 'reason', type: 'nominal', title: 'reason', legend: { orient: 'right' } },
        tooltip: [
          { field: 'layer', title: 'layer' },
          { field: 'reason', title: 'reason' },
          { field: 'trials', aggregate: 'sum', title: 'failed trials' },
        ],
      },
    },
  };
}

function stepsDistribution(counts: ReturnType<typeof rowCounts>['steps']): Chart {
  return {
    id: 'steps',
    title: 'Steps per trial',
    spec: {
      ...base,
      data: { values: [...counts.values()] },
      mark: { type: 'bar', tooltip: true },
      encoding: {
        x: { field: 'steps', type: 'ordinal', title: 'steps' },
        y: { field: 'trials', type: 'quantitative', aggregate: 'sum', title: 'trials', axis: { tickMinStep: 1, format: 'd' } },
        color: { field: 'status', type: 'nominal', scale: STATUS_COLORS, title: 'status' },
        tooltip: [{ field: 'steps', title: 'steps' }, { field: 'status', title: 'status' }, { field: 'trials', aggregate: 'sum', title: 'trials' }],
      },
    },
  };
}

/** Up to this many tasks the latency chart shows one point per task; above it, counts per bin. */
const MAX_POINTS = 2000;
const BINS = { x: 40, y: 30 };

const latencyEncoding = (size: Record<string, unknown> | null, tooltip: unknown[]) => ({
  x: { field: 'seconds', type: 'quantitative', title: 'seconds per trial', axis: { tickCount: 5 } },
  y: { field: 'tokens', type: 'quantitative', title: 'tokens per trial' },
  color: { field: 'status', type: 'nominal', scale: STATUS_COLORS, title: 'status' },
  ...(size ? { size } : {}),
  tooltip,
});

/** [low, high) bins over values; the last bin is closed. */
function binner(values: number[], count: number): { index: (v: number) => number; edges: (i: number) => [number, number] } {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const width = max > min ? (max - min) / count : 1;
  return {
    index: (v) => Math.min(count - 1, Math.floor((v - min) / width)),
    edges: (i) => [min + i * width, min + (i + 1) * width],
  };
}

function latencyAndTokens(points: Point[]): Chart {
  const chart = { id: 'latency', spec: { ...base, mark: { type: 'point', filled: true, tooltip: true, opacity: 0.7 } } };
  if (points.length <= MAX_POINTS) {
    return {
      ...chart,
      title: 'Latency and tokens per task',
      spec: {
        ...chart.spec,
        data: { values: points },
        encoding: latencyEncoding(null, [
          { field: 'id', title: 'task' },
          { field: 'status', title: 'status' },
          { field: 'seconds', format: '.2f', title: 'seconds' },
          { field: 'tokens', format: ',.0f', title: 'tokens' },
        ]),
      },
    };
  }
  // Aggregated here, not in the page: a point per (seconds bin, tokens bin, status), sized by its tasks.
  const xs = binner(points.map((p) => p.seconds), BINS.x);
  const ys = binner(points.map((p) => p.tokens), BINS.y);
  const cells = new Map<string, { seconds: number; tokens: number; status: string; tasks: number; seconds_range: string; tokens_range: string }>();
  for (const p of points) {
    const xi = xs.index(p.seconds);
    const yi = ys.index(p.tokens);
    const key = `${xi}|${yi}|${p.status}`;
    let cell = cells.get(key);
    if (!cell) {
      const [x0, x1] = xs.edges(xi);
      const [y0, y1] = ys.edges(yi);
      cell = { seconds: (x0 + x1) / 2, tokens: (y0 + y1) / 2, status: p.status, tasks: 0, seconds_range: `${x0.toFixed(2)}–${x1.toFixed(2)} s`, tokens_range: `${Math.round(y0)}–${Math.round(y1)}` };
      cells.set(key, cell);
    }
    cell.tasks++;
  }
  return {
    ...chart,
    title: `Latency and tokens per task (${points.length.toLocaleString('en')} tasks in ${BINS.x}×${BINS.y} bins)`,
    spec: {
      ...chart.spec,
      data: { values: [...cells.values()] },
      encoding: latencyEncoding({ field: 'tasks', type: 'quantitative', title: 'tasks', scale: { type: 'sqrt' } }, [
        { field: 'status', title: 'status' },
        { field: 'tasks', format: ',d', title: 'tasks' },
        { field: 'seconds_range', title: 'seconds' },
        { field: 'tokens_range', title: 'tokens' },
      ]),
    },
  };
}

function baselineComparison(report: StreamedReport): Chart[] {
  const diff = report.diff;
  if (!diff) return [];
  const rows = diff.metrics
    .filter((m) => RATE_METRICS.has(m.name))
    .flatMap((m) => [
      { metric: m.name, run: 'baseline', value: m.baseline, better: m.better },
      { metric: m.name, run: 'current', value: m.current, better: m.better },
    ])
    .filter((r) => r.value !== null);
  const charts: Chart[] = [
    {
      id: 'baseline-metrics',
      title: 'Baseline versus current',
      spec: {
        ...base,
        data: { values: rows },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          y: { field: 'metric', type: 'nominal', title: null },
          yOffset: { field: 'run' },
          x: { field: 'value', type: 'quantitative', axis: { format: '%' }, title: null },
          color: { field: 'run', type: 'nominal', scale: { domain: ['baseline', 'current'], range: ['#9aa5b1', '#1f5f99'] }, title: null },
          tooltip: [{ field: 'metric' }, { field: 'run' }, { field: 'value', format: '.1%' }, { field: 'better', title: 'better when' }],
        },
        height: { step: 14 },
      },
    },
  ];
  const sig = diff.significance;
  if (sig) {
    charts.push({
      id: 'verdict',
      title: `Paired test: ${sig.verdict}, ${describeDrop(sig)} (the chart shows the change, current − baseline)`,
      spec: {
        ...base,
        height: 80,
        data: { values: [{ label: 'current − baseline', delta: sig.delta, low: sig.ci_low, high: sig.ci_high, verdict: sig.verdict, p: sig.p_value, mde: sig.minimum_detectable_effect }] },
        layer: [
          { mark: { type: 'rule', strokeDash: [4, 4], color: '#777' }, encoding: { x: { datum: 0, type: 'quantitative' } } },
          {
            mark: { type: 'rule', strokeWidth: 3, tooltip: true },
            encoding: {
              y: { field: 'label', type: 'nominal', title: null },
              x: { field: 'low', type: 'quantitative', axis: { format: '+%' }, title: 'pass-rate change', scale: { domain: [Math.min(-0.2, sig.ci_low), Math.max(0.2, sig.ci_high)] } },
              x2: { field: 'high' },
              color: { field: 'verdict', type: 'nominal', scale: { domain: ['regressed', 'inconclusive', 'improved'], range: ['#c23b3b', '#777777', '#2e9e5b'] }, legend: null },
              tooltip: [{ field: 'verdict' }, { field: 'delta', format: '+.1%', title: 'change' }, { field: 'low', format: '+.1%', title: 'low' }, { field: 'high', format: '+.1%', title: 'high' }, { field: 'p', format: '.3g', title: 'p' }, { field: 'mde', format: '.1%', title: 'min. detectable' }],
            },
          },
          {
            mark: { type: 'point', filled: true, size: 90, tooltip: true },
            encoding: {
              y: { field: 'label', type: 'nominal' },
              x: { field: 'delta', type: 'quantitative' },
              color: { field: 'verdict', type: 'nominal', legend: null },
              tooltip: [{ field: 'verdict' }, { field: 'delta', format: '+.1%', title: 'change' }],
            },
          },
        ],
      },
    });
  }
  return charts;
}

const RUN_COLORS = { domain: ['baseline', 'current'], range: ['#9aa5b1', '#1f5f99'] };

/** Failed trials of one distribution (reasons or layers), baseline beside current, the ones that grew on top. */
function triageChart(id: string, what: 'reason' | 'layer', distribution: TriageDistribution): Chart | null {
  const rows = triageRows(distribution);
  if (rows.length === 0) return null;
  const order = rows.map((r) => r.name);
  const values = rows.flatMap((r) => [
    { [what]: r.name, run: 'baseline', trials: r.baseline, change: triageText(r) },
    { [what]: r.name, run: 'current', trials: r.current, change: triageText(r) },
  ]);
  const y = { field: what, type: 'nominal', sort: order, title: null };
  return {
    id,
    title: `Failure ${what}s, baseline versus current (failed trials)`,
    spec: {
      ...base,
      data: { values },
      encoding: { y, yOffset: { field: 'run', sort: RUN_COLORS.domain }, x: { field: 'trials', type: 'quantitative', title: 'failed trials', axis: { tickMinStep: 1, format: 'd' } } },
      layer: [
        {
          mark: { type: 'bar', tooltip: true },
          encoding: {
            color: { field: 'run', type: 'nominal', scale: RUN_COLORS, title: null },
            tooltip: [{ field: what, title: what }, { field: 'run' }, { field: 'trials', title: 'failed trials' }, { field: 'change', title: 'baseline → current' }],
          },
        },
        { mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 }, encoding: { text: { field: 'trials', type: 'quantitative' } } },
      ],
      height: { step: 14 },
    },
  };
}

function failureTriage(report: StreamedReport): Chart[] {
  const diff = report.diff;
  if (!diff) return [];
  return [triageChart('triage-reasons', 'reason', diff.failure_reasons), triageChart('triage-layers', 'layer', diff.failure_layers)].filter((c): c is Chart => c !== null);
}

/** Every chart of the report, in page order. */
export function buildCharts(report: StreamedReport): Chart[] {
  const counts = rowCounts(report);
  return [passRateByTag(report), failuresByLayer(counts.failures), ...failureTriage(report), ...baselineComparison(report), stepsDistribution(counts.steps), latencyAndTokens(counts.points)];
}
