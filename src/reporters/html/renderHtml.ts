import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { completeness } from '../../report/completeness.js';
import { packageFile } from '../../files/packageFiles.js';
import type { StreamedReport } from '../../report/taskRows.js';
import { vocabularyForViewer } from '../../schema/traceVocabulary.js';
import { agreementLabel, judgeLabel, modelLabel } from '../modelLabel.js';
import { buildCharts } from './charts.js';
import { createRedactor } from '../../schema/redact.js';
import { TraceSchema } from '../../schema/trace.js';
import { packTrace } from './compactTrace.js';
import type { ViewerTraces } from './viewerTraces.js';
import { RUN_DEFAULTS } from '../../schema/runDefaults.js';
import { DETAIL_CHUNK, pageData } from './pageData.js';

export interface RenderOptions {
  /** The folder the report's trace paths are relative to. */
  traceRoot: string;
  /** Most bytes of trace data to embed; failing and regressed tasks come first. */
  traceBudgetBytes?: number;
  /** Most traces to embed (each is read, validated and compressed while the page is written). */
  maxEmbeddedTraces?: number;
  /** Traces the run packed as it stored them, by trace path; any other is read from its file. */
  packed?: ViewerTraces;
  /**
   * Redaction for a trace read from its file (default: the environment's redactor). A report folder
   * may come from elsewhere (`tracegate report`, `diff`), and its trace files with it.
   */
  redact?: <T>(value: T) => T;
}

/** Where the table's rows go in the data block, which is written around them in pieces. */
const ROWS_MARKER = '"__tracegate_page_rows__"';
const ROWS_PER_CHUNK = 1000;
const DEFAULT_TRACE_BUDGET = RUN_DEFAULTS.traceBudgetBytes;
/** Beyond this many, traces are linked (traces/…) rather than embedded; failures are embedded first. */
const DEFAULT_MAX_EMBEDDED_TRACES = RUN_DEFAULTS.maxEmbeddedTraces;
const require = createRequire(import.meta.url);

/** The viewer's own files (shipped as sources: src/reporters/html/assets). */
function asset(name: string): string {
  return readFileSync(packageFile('src', 'reporters', 'html', 'assets', name), 'utf8');
}

const VENDOR: Array<[string, string]> = [
  ['vega', 'build/vega.min.js'],
  ['vega-lite', 'build/vega-lite.min.js'],
  ['vega-embed', 'build/vega-embed.min.js'],
];
let vendorCache: string[] | undefined;

/** A file inside an installed package, even one its `exports` map does not list. */
function dependencyFile(name: string, file: string): string {
  let dir = path.dirname(require.resolve(name));
  while (dir !== path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return path.join(dir, file);
    dir = path.dirname(dir);
  }
  throw new Error(`package ${name} not found`);
}

/** An inline script may not contain `</script`; `<\/` means the same inside JS strings and regexes. */
function safeScript(source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** JSON that can sit inside a <script type="application/json"> and never close it. */
export function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Which traces to embed: failing, errored and regressed tasks first, then the rest, within the budget. */
function embeddedTraces(report: StreamedReport, options: RenderOptions): Map<string, string> {
  const budget = options.traceBudgetBytes ?? DEFAULT_TRACE_BUDGET;
  const maxTraces = options.maxEmbeddedTraces ?? DEFAULT_MAX_EMBEDDED_TRACES;
  const regressed = new Set(report.diff?.tasks.filter((t) => t.change === 'regressed').map((t) => t.id));
  const baselineTraces = new Map(report.diff?.tasks.map((t) => [t.id, t.baseline_trace_file]));
  // Suite order within each group, as a stable sort on "needs a look" gave it.
  const first: string[] = [];
  const rest: string[] = [];
  for (const task of report.tasks) {
    const list = task.status !== 'passed' || regressed.has(task.id) ? first : rest;
    for (const trial of task.trials) if (trial.trace_file) list.push(trial.trace_file);
    const baselineTrace = baselineTraces.get(task.id);
    if (baselineTrace) list.push(baselineTrace);
  }
  const wanted = first.concat(rest);
  const traces = new Map<string, string>();
  const redact = options.redact ?? createRedactor().deep;
  let used = 0;
  for (const file of wanted) {
    if (traces.size >= maxTraces) break;
    if (traces.has(file)) continue;
    let packed = options.packed?.get(file);
    if (packed === undefined) {
      const full = path.resolve(options.traceRoot, file);
      if (!full.startsWith(path.resolve(options.traceRoot) + path.sep) || !existsSync(full)) continue;
      try {
        // gzip + base64: a trace costs a few hundred bytes of inert text until someone opens it.
        packed = packTrace(redact(TraceSchema.parse(JSON.parse(readFileSync(full, 'utf8')))));
      } catch {
        continue;
      }
    }
    if (used + packed.length > budget) break;
    used += packed.length;
    traces.set(file, packed);
  }
  return traces;
}

/**
 * report.html: one self-contained page. Vega, Vega-Lite and vega-embed are inlined; the table's rows
 * are one inert JSON block; each task's details and each embedded trace are gzip-compressed inert
 * blocks after the scripts, so the table is up before the parser reaches them and a block is
 * inflated only when its task is opened; the viewer builds the DOM from text nodes only. A CSP with script hashes forbids every other script and every request.
 * The page comes as a sequence of chunks (each block its own), so a 100,000-task page is written
 * without ever being one string.
 */
export async function* renderHtmlChunks(report: StreamedReport, options: RenderOptions): AsyncGenerator<string> {
  vendorCache ??= VENDOR.map(([name, file]) => safeScript(readFileSync(dependencyFile(name, file), 'utf8')));
  const viewer = safeScript(asset('viewer.js'));
  const styles = asset('viewer.css');
  // The viewer first: the table is up before the browser compiles vega; charts wait for the whole page.
  const scripts = [viewer, ...vendorCache];
  const traces = embeddedTraces(report, options);
  const { detailBlocks, rows, report: pageReport, facets } = pageData(report);
  const data = {
    report: pageReport,
    rows: ROWS_MARKER.slice(1, -1),
    facets,
    charts: buildCharts(report),
    modelLabel: modelLabel(report.run.model),
    judgeLabel: report.run.judge ? `judge: ${judgeLabel(report.run.judge)}${report.summary.rubric_agreement ? `; ${agreementLabel(report.summary.rubric_agreement)}` : ''}` : null,
    notice: completeness(report).notice,
    embeddedTraces: traces.size,
    detailChunk: DETAIL_CHUNK,
    // The viewer reads span attributes by these names (canonical key first, then older keys).
    vocabulary: vocabularyForViewer(),
  };
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map(sha256).join(' ')}`,
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const title = `tracegate · ${report.run.suites.map((s) => s.path).join(', ')}`;
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body>
<noscript>This report needs JavaScript; report.json beside it holds the same data.</noscript>
<div id="app"></div>
<script type="application/json" id="tracegate-data">`;
  // The data block in pieces: the frame around its rows, then the rows a thousand at a time.
  const frame = inertJson(data);
  const at = frame.indexOf(ROWS_MARKER);
  yield frame.slice(0, at) + '[';
  for (let i = 0; i < rows.length; i += ROWS_PER_CHUNK) {
    const chunk = inertJson(rows.slice(i, i + ROWS_PER_CHUNK));
    yield (i ? ',' : '') + chunk.slice(1, -1);
  }
  yield ']' + frame.slice(at + ROWS_MARKER.length);
  yield '</script>\n';
  yield scripts.map((s) => `<script>${s}</script>`).join('\n') + '\n';
  for (let i = 0; i < detailBlocks.length; i++) {
    yield `${i ? '\n' : ''}<script type="application/gzip;base64" class="details" data-chunk="${i}">${detailBlocks[i]}</script>`;
  }
  yield '\n';
  let first = true;
  for (const [file, packed] of traces) {
    yield `${first ? '' : '\n'}<script type="application/gzip;base64" class="trace" data-file="${escapeHtml(file)}">${packed}</script>`;
    first = false;
  }
  yield '\n</body>\n</html>\n';
}

/** The whole page as one string (for tests and small reports; a run writes renderHtmlChunks). */
export async function renderHtml(report: StreamedReport, options: RenderOptions): Promise<string> {
  let page = '';
  for await (const chunk of renderHtmlChunks(report, options)) page += chunk;
  return page;
}
