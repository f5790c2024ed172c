// tracegate report viewer. Plain browser JavaScript, inlined into report.html.
// Every piece of report data is untrusted: it reaches the page only as text nodes and
// attribute values set through the DOM, never as HTML.
(function () {
  'use strict';

  var PAGE = 200;
  var CHANGE_ORDER = ['regressed', 'errored', 'reason_changed', 'fixed', 'still_failing', 'new', 'removed', 'unchanged'];
  var state = { ready: false, opening: false, chartsRendered: 0, chartErrors: [], filtered: 0, shown: 0 };
  window.__tracegate = state;

  state.timings = { start: performance.now() };
  var data = JSON.parse(document.getElementById('tracegate-data').textContent);
  state.timings.parsed = performance.now();
  var report = data.report;
  var diff = report.diff || null;
  var app = document.getElementById('app');

  // h('div', {class: 'x', data: {id: '1'}, on: {click: fn}}, 'text', child, ...)
  function h(tag, props) {
    var el = document.createElement(tag);
    props = props || {};
    Object.keys(props).forEach(function (key) {
      var value = props[key];
      if (value === undefined || value === null || value === false) return;
      if (key === 'class') el.className = value;
      else if (key === 'data') Object.keys(value).forEach(function (k) { el.dataset[k] = String(value[k]); });
      else if (key === 'on') Object.keys(value).forEach(function (k) { el.addEventListener(k, value[k]); });
      else if (key === 'style') Object.keys(value).forEach(function (k) { el.style[k] = value[k]; });
      else el.setAttribute(key, String(value));
    });
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }
  function append(el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(el, c); });
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
  function token(value) {
    // Class-name fragments come from fixed vocabularies; anything else is neutralized.
    return String(value).toLowerCase().replace(/[^a-z0-9_-]/g, '');
  }
  function pct(v) { return v === null || v === undefined ? 'n/a' : (v * 100).toFixed(1) + '%'; }
  function signedPts(v) { return v === null || v === undefined ? 'n/a' : (v >= 0 ? '+' : '') + (v * 100).toFixed(1) + ' pts'; }
  function badge(text, kind) { return h('span', { class: 'badge ' + token(kind || text) }, text); }

  // ---------- header, summary, gate, diff ----------
  function header() {
    var run = report.run;
    var s = report.summary;
    var mode = token(run.model.mode);
    var cards = [
      ['tasks', s.total],
      ['pass rate', pct(s.pass_rate)],
      ['passed', s.passed],
      ['failed', s.failed],
      ['errored', s.errored],
      ['steps (mean)', s.steps.mean.toFixed(1)],
      ['tokens', s.tokens.total.toLocaleString()],
      ['duration', (s.duration_ms.total / 1000).toFixed(1) + ' s'],
    ];
    if (s.epochs > 1) {
      cards.push(['pass@' + s.epochs, pct(s.pass_at_k)], ['pass^' + s.epochs, pct(s.pass_hat_k)], ['flaky', s.flaky]);
    }
    return h('header', null,
      h('h1', null, 'tracegate report'),
      h('p', { class: 'suites' }, run.suites.map(function (x) { return x.path; }).join(', '),
        run.variant ? ' · variant ' + run.variant.name : '', ' · ', new Date(run.started_at).toLocaleString()),
      h('p', { class: 'model mode-' + mode, id: 'model-label' }, data.modelLabel),
      run.interrupted ? h('p', { class: 'warning' }, 'Interrupted: this report holds only the trials that finished.') : null,
      h('div', { class: 'cards' }, cards.map(function (c) { return h('div', { class: 'card' }, h('div', { class: 'value' }, String(c[1])), h('div', { class: 'label' }, c[0])); })),
      h('p', { class: 'meta' }, 'policy ', run.policy, ' · sandbox ', run.sandbox, ' · concurrency ', String(run.concurrency),
        run.shard ? ' · shard ' + run.shard.index + '/' + run.shard.total : '', ' · tracegate ', run.tracegate_version));
  }

  function gateSection() {
    var gate = report.gate;
    if (!gate) return null;
    return h('section', { id: 'gate', class: gate.passed ? 'gate-pass' : 'gate-fail' },
      h('h2', null, 'Gate: ', gate.passed ? 'passed' : 'FAILED', h('span', { class: 'muted' }, ' (' + gate.source + ')')),
      h('table', { class: 'rules' },
        h('thead', null, h('tr', null, h('th', null, 'rule'), h('th', null, 'expected'), h('th', null, 'actual'), h('th', null, ''))),
        h('tbody', null, gate.results.map(function (r) {
          return h('tr', { class: r.passed ? 'ok' : 'bad' }, h('td', null, r.rule), h('td', null, r.expected),
            h('td', null, r.actual, r.detail ? h('div', { class: 'muted' }, r.detail) : null), h('td', null, r.passed ? 'pass' : 'FAIL'));
        }))));
  }

  function diffSection() {
    if (!diff) return null;
    var c = diff.counts;
    var sig = diff.significance;
    return h('section', { id: 'diff' },
      h('h2', null, 'Against baseline ', h('code', null, diff.baseline.file)),
      h('p', null, c.regressed + ' regressed · ' + c.fixed + ' fixed · ' + c.reason_changed + ' changed reason · ' + c.still_failing +
        ' still failing · ' + c.unchanged + ' unchanged · ' + c.new + ' new · ' + c.removed + ' removed · ' + c.errored + ' errored'),
      sig ? h('p', { class: 'verdict verdict-' + token(sig.verdict) }, 'Paired test (' + sig.method.replace('_', ' ') + '): ', h('strong', null, sig.verdict),
        ' — change ' + signedPts(sig.delta) + ', ' + Math.round(sig.confidence * 100) + '% interval [' + signedPts(sig.ci_low) + ', ' + signedPts(sig.ci_high) +
        '], p = ' + sig.p_value.toPrecision(3) + ', minimum detectable effect ' + pct(sig.minimum_detectable_effect) + ' over ' + sig.pairs + ' paired tasks') : null,
      diff.notes.length ? h('ul', { class: 'notes' }, diff.notes.map(function (n) { return h('li', null, n); })) : null);
  }

  // ---------- charts ----------
  // Charts are drawn after the table is up, one per task turn, so a big report is usable at once.
  var pendingCharts = [];
  function drawChartsLater() {
    var next = pendingCharts.shift();
    if (!next) return;
    next();
    setTimeout(drawChartsLater, 0);
  }
  function chartsSection() {
    var grid = h('div', { class: 'charts' });
    data.charts.forEach(function (chart) {
      var vis = h('div', { class: 'vis' });
      var box = h('figure', { class: 'chart', data: { chart: chart.id } }, h('figcaption', null, chart.title), vis);
      grid.appendChild(box);
      pendingCharts.push(function () {
        if (typeof window.vegaEmbed !== 'function') {
          state.chartErrors.push(chart.id + ': vega-embed did not load');
          vis.appendChild(h('p', { class: 'warning' }, 'charts unavailable: vega-embed did not load'));
          return;
        }
        // ast + interpreter: vega evaluates expressions without eval, as the page's CSP demands.
        window.vegaEmbed(vis, chart.spec, { actions: false, ast: true, renderer: 'canvas', tooltip: { theme: 'light' } })
          .then(function () { box.dataset.rendered = 'true'; state.chartsRendered++; })
          .catch(function (error) {
            state.chartErrors.push(chart.id + ': ' + error.message);
            vis.appendChild(h('p', { class: 'warning' }, 'chart failed: ' + error.message));
          });
      });
    });
    return h('section', { id: 'charts' }, h('h2', null, 'Charts'), grid);
  }

  // ---------- tasks table ----------
  var changeById = {};
  if (diff) diff.tasks.forEach(function (t) { changeById[t.id] = t; });

  var rows = report.tasks.map(function (t) {
    var change = changeById[t.id] ? changeById[t.id].change : null;
    return {
      task: t,
      change: change,
      search: [t.id, t.failure_reason || '', t.failure_layer || '', t.answer_preview || '', t.tags.join(' '), t.error ? t.error.message : ''].join(' ').toLowerCase(),
    };
  });
  rows.sort(function (a, b) {
    if (diff) {
      var d = CHANGE_ORDER.indexOf(a.change) - CHANGE_ORDER.indexOf(b.change);
      if (d !== 0) return d;
    }
    var rank = { failed: 0, errored: 1, passed: 2 };
    return rank[a.task.status] - rank[b.task.status] || (a.task.id < b.task.id ? -1 : a.task.id > b.task.id ? 1 : 0);
  });

  function distinct(get) {
    var seen = {};
    rows.forEach(function (r) { [].concat(get(r)).forEach(function (v) { if (v) seen[v] = true; }); });
    return Object.keys(seen).sort();
  }

  var filters = {};
  function select(name, label, values) {
    var el = h('select', { id: 'filter-' + name, 'aria-label': label, on: { change: applyFilters } },
      h('option', { value: '' }, 'any ' + label), values.map(function (v) { return h('option', { value: v }, v); }));
    filters[name] = el;
    return el;
  }

  var tbody = h('tbody', { id: 'task-rows' });
  var countLine = h('span', { id: 'task-count' });
  var moreButton = h('button', { id: 'show-more', type: 'button', on: { click: function () { renderRows(state.shown + PAGE); } } }, 'show more');
  var current = rows;

  function applyFilters() {
    var status = filters.status.value, layer = filters.layer.value, reason = filters.reason.value, tag = filters.tag.value;
    var change = filters.change ? filters.change.value : '';
    var text = filters.text.value.trim().toLowerCase();
    current = rows.filter(function (r) {
      var t = r.task;
      return (!status || t.status === status || (status === 'flaky' && t.flaky)) &&
        (!layer || t.failure_layer === layer) && (!reason || t.failure_reason === reason) &&
        (!tag || t.tags.indexOf(tag) >= 0) && (!change || r.change === change) &&
        (!text || r.search.indexOf(text) >= 0);
    });
    state.filtered = current.length;
    renderRows(PAGE);
  }

  function renderRows(limit) {
    var fragment = document.createDocumentFragment();
    var end = Math.min(limit, current.length);
    for (var i = 0; i < end; i++) fragment.appendChild(rowFor(current[i]));
    tbody.textContent = '';
    tbody.appendChild(fragment);
    state.shown = end;
    countLine.textContent = 'showing ' + end + ' of ' + current.length + ' tasks' + (current.length !== rows.length ? ' (filtered from ' + rows.length + ')' : '');
    moreButton.hidden = end >= current.length;
  }

  function rowFor(r) {
    var t = r.task;
    return h('tr', { class: 'task status-' + token(t.status), tabindex: '0', data: { id: t.id } },
      h('td', null, badge(t.status), t.flaky ? badge('flaky') : null),
      diff ? h('td', null, r.change ? badge(r.change.replace('_', ' '), r.change) : '') : null,
      h('td', { class: 'id' }, t.id),
      h('td', null, t.failure_reason || (t.error ? t.error.code : '')),
      h('td', null, t.failure_layer ? badge(t.failure_layer, 'layer-' + t.failure_layer) : ''),
      h('td', { class: 'num' }, String(t.steps)),
      h('td', { class: 'num' }, t.pass_fraction === null ? 'n/a' : pct(t.pass_fraction)),
      h('td', null, t.tags.join(', ')),
      h('td', { class: 'num' }, (t.duration_ms / 1000).toFixed(2) + ' s'));
  }

  function openFromEvent(event) {
    var tr = event.target.closest('tr.task');
    if (!tr) return;
    if (event.type === 'keydown' && event.key !== 'Enter') return;
    openTask(tr.dataset.id);
  }
  tbody.addEventListener('click', openFromEvent);
  tbody.addEventListener('keydown', openFromEvent);

  function tasksSection() {
    var controls = h('div', { class: 'filters' },
      select('status', 'status', ['passed', 'failed', 'errored', 'flaky']),
      select('layer', 'layer', distinct(function (r) { return r.task.failure_layer; })),
      select('reason', 'reason', distinct(function (r) { return r.task.failure_reason; })),
      select('tag', 'tag', distinct(function (r) { return r.task.tags; })),
      diff ? select('change', 'change', distinct(function (r) { return r.change; })) : null,
      (filters.text = h('input', { id: 'filter-text', type: 'search', placeholder: 'search id, reason, answer…', 'aria-label': 'search', on: { input: applyFilters } })),
      countLine);
    var headRow = h('tr', null, h('th', null, 'status'), diff ? h('th', null, 'change') : null, h('th', null, 'task'), h('th', null, 'reason'),
      h('th', null, 'layer'), h('th', null, 'steps'), h('th', null, 'pass'), h('th', null, 'tags'), h('th', null, 'time'));
    return h('section', { id: 'tasks' }, h('h2', null, 'Tasks'), controls,
      h('table', { class: 'tasks' }, h('thead', null, headRow), tbody), moreButton);
  }

  // ---------- task detail and trace viewer ----------
  var traceElements = null;
  var traceCache = {};
  // The trace blocks come after this script, so they exist only once the document is parsed.
  var documentParsed = new Promise(function (resolve) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', resolve);
    else resolve();
  });
  /** Inflates one embedded trace (gzip, base64) on first use; resolves to null when absent. */
  function loadTrace(file) {
    if (!file) return Promise.resolve(null);
    return documentParsed.then(function () { return inflateTrace(file); });
  }
  function inflateTrace(file) {
    if (!traceElements) {
      traceElements = {};
      document.querySelectorAll('script.trace').forEach(function (el) { traceElements[el.dataset.file] = el; });
    }
    if (!(file in traceCache)) {
      var el = traceElements[file];
      traceCache[file] = !el ? Promise.resolve(null) : (function () {
        var binary = atob(el.textContent.trim());
        var bytes = new Uint8Array(binary.length);
        for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
        return new Response(stream).text().then(JSON.parse);
      })();
    }
    return traceCache[file];
  }

  var detail = h('section', { id: 'detail', hidden: true });

  function checksList(checks) {
    if (!checks.length) return null;
    var sorted = checks.slice().sort(function (a, b) { return Number(a.passed) - Number(b.passed); });
    return h('ul', { class: 'checks' }, sorted.map(function (c) {
      return h('li', { class: c.passed ? 'ok' : 'bad' }, badge(c.passed ? 'pass' : 'fail', c.passed ? 'passed' : 'failed'), ' ', h('strong', null, c.type), ': ', c.reason);
    }));
  }

  // Span attributes are read by vocabulary name (src/schema/traceVocabulary.ts, emitted into the
  // page as data.vocabulary): the canonical key first, then the older keys trace/v1 files carry.
  var VOCABULARY = data.vocabulary || {};
  function attr(span, name) {
    var keys = VOCABULARY[name] || [name];
    for (var i = 0; i < keys.length; i++) {
      var v = span.attributes[keys[i]];
      if (v !== undefined && v !== null) return v;
    }
    return null;
  }

  function spanDetails(span) {
    var parts = [];
    if (span.kind === 'tool') {
      parts.push(h('div', { class: 'call' }, h('strong', null, attr(span, 'toolName') || span.name), ' ', h('code', { class: 'args' }, attr(span, 'toolArguments') || '')));
      var decision = attr(span, 'policyDecision');
      var approval = attr(span, 'approvalRequired') === true
        ? ' · approval ' + (attr(span, 'approved') === true ? 'granted' : 'refused') + (attr(span, 'approvalVia') ? ' (' + attr(span, 'approvalVia') + ')' : '')
        : '';
      parts.push(h('div', { class: 'decision' }, badge(decision || 'not judged', 'decision-' + (decision || 'none')),
        attr(span, 'riskLevel') ? ' risk ' + attr(span, 'riskLevel') : '', approval,
        attr(span, 'riskReason') ? h('span', { class: 'muted' }, ' — ' + attr(span, 'riskReason')) : null,
        attr(span, 'sandboxMode') ? h('span', { class: 'muted' }, ' · sandbox ' + attr(span, 'sandboxMode')) : null));
      var ok = attr(span, 'resultOk') === true;
      parts.push(h('div', { class: 'result ' + (ok ? 'ok' : 'bad') },
        ok ? badge(attr(span, 'executed') === true ? 'ok' : 'ok (not executed)', 'passed') : badge(attr(span, 'errorType') || 'error', 'failed'),
        attr(span, 'truncated') === true ? badge('truncated', 'warning') : null,
        attr(span, 'message') ? ' ' + attr(span, 'message') : '',
        attr(span, 'suggestion') ? h('div', { class: 'muted' }, 'suggestion: ' + attr(span, 'suggestion')) : null));
      if (attr(span, 'toolResult')) parts.push(h('details', null, h('summary', null, 'output (' + (attr(span, 'outputChars') || 0) + ' chars)'), h('pre', null, attr(span, 'toolResult'))));
    } else if (span.kind === 'llm') {
      var calls = Number(attr(span, 'llmToolCalls') || 0);
      parts.push(h('div', null, calls ? calls + ' tool call' + (calls > 1 ? 's' : '') : 'no tool call',
        h('span', { class: 'muted' }, ' · ' + (attr(span, 'inputTokens') || 0) + ' in / ' + (attr(span, 'outputTokens') || 0) + ' out tokens'),
        span.events.length ? h('span', { class: 'muted' }, ' · events: ' + span.events.join(', ')) : null));
      if (attr(span, 'llmContent')) parts.push(h('pre', { class: 'content' }, attr(span, 'llmContent')));
    } else if (span.kind === 'compression') {
      parts.push(h('div', null, 'context ' + attr(span, 'charsBefore') + ' → ' + attr(span, 'charsAfter') + ' chars, ' + attr(span, 'compressedResults') + ' tool results summarized'));
    }
    return parts;
  }

  function timeline(trace, evidence) {
    if (!trace) return h('p', { class: 'muted' }, 'This trace is not embedded in the page (see the traces folder beside report.json).');
    var total = Math.max(1, trace.duration_ms);
    var evidenceById = {};
    evidence.forEach(function (e) { if (e.span_id) evidenceById[e.span_id] = (evidenceById[e.span_id] ? evidenceById[e.span_id] + '; ' : '') + e.detail; });
    var list = h('ol', { class: 'timeline' }, trace.spans.map(function (span) {
      var note = evidenceById[span.id];
      var left = Math.max(0, Math.min(100, (span.start / total) * 100));
      var width = Math.max(0.5, Math.min(100 - left, ((span.end - span.start) / total) * 100));
      return h('li', { class: 'span kind-' + token(span.kind) + ' status-' + token(span.status) + (note ? ' evidence' : ''), data: { spanId: span.id } },
        h('div', { class: 'span-head' }, h('span', { class: 'step' }, 'step ' + (attr(span, 'step') || '?')), badge(span.kind, 'kind-' + span.kind), ' ', span.name,
          h('span', { class: 'muted' }, ' ' + (span.end - span.start) + ' ms')),
        h('div', { class: 'bar-track' }, h('div', { class: 'bar', style: { left: left + '%', width: width + '%' } })),
        note ? h('div', { class: 'evidence-note' }, 'evidence: ' + note) : null,
        spanDetails(span));
    }));
    return h('div', { class: 'trace' },
      h('p', { class: 'muted' }, 'model: ' + trace.model.provider + ' / ' + trace.model.mode + ' / ' + trace.model.model + ' · ' + trace.duration_ms + ' ms · ' + trace.usage.total_tokens + ' tokens'),
      trace.error ? h('p', { class: 'warning' }, 'run error ' + trace.error.code + ': ' + trace.error.message) : null,
      list,
      h('div', { class: 'final' }, h('h4', null, 'final answer (' + trace.final_answer.exit_reason + ')'), h('pre', null, trace.final_answer.text === null ? '(none)' : trace.final_answer.text)));
  }

  /** A task's trials; a single trial is the task row itself. */
  function trialsOf(t) {
    return t.trials && t.trials.length ? t.trials : [{ epoch: 0, status: t.status, failure_reason: t.failure_reason, failure_layer: t.failure_layer, evidence: t.evidence, checks: t.checks, trace_file: t.trace_file, error: t.error, steps: t.steps }];
  }

  var opening = 0;
  function openTask(id, epoch) {
    var t = null;
    for (var i = 0; i < report.tasks.length; i++) if (report.tasks[i].id === id) { t = report.tasks[i]; break; }
    if (!t) return Promise.resolve();
    var trials = trialsOf(t);
    var trial = trials.filter(function (x) { return x.epoch === epoch; })[0] || trials.filter(function (x) { return x.status === 'failed'; })[0] || trials[0];
    var change = changeById[t.id];
    var ticket = ++opening;
    state.opening = true;
    return Promise.all([loadTrace(change && change.baseline_trace_file), loadTrace(trial.trace_file)]).then(function (loaded) {
      if (ticket !== opening) return; // a later click won
      renderDetail(t, trials, trial, change, loaded[0], loaded[1]);
      state.opening = false;
    }, function (error) {
      detail.hidden = false;
      detail.textContent = '';
      append(detail, h('p', { class: 'warning' }, 'could not open the trace: ' + error.message));
      state.opening = false;
    });
  }

  function renderDetail(t, trials, trial, change, baselineTrace, currentTrace) {
    detail.textContent = '';
    detail.hidden = false;
    append(detail, [
      h('div', { class: 'detail-head' },
        h('h2', null, t.id), badge(t.status), t.flaky ? badge('flaky') : null, change ? badge(change.change.replace('_', ' '), change.change) : null,
        h('button', { type: 'button', class: 'close', on: { click: function () { detail.hidden = true; history.replaceState(null, '', '#'); } } }, 'close')),
      trials.length > 1 ? h('p', { class: 'trials' }, 'trials: ', trials.map(function (x) {
        return h('button', { type: 'button', class: 'trial ' + token(x.status) + (x === trial ? ' current' : ''), on: { click: function () { openTask(t.id, x.epoch); } } }, '#' + x.epoch + ' ' + x.status);
      })) : null,
      trial.failure_reason ? h('p', null, 'reason ', h('strong', null, trial.failure_reason), ' in the ', h('strong', null, trial.failure_layer), ' layer') : null,
      trial.error ? h('p', { class: 'warning' }, trial.error.code + ': ' + trial.error.message) : null,
      trial.evidence.length ? h('ul', { class: 'evidence-list' }, trial.evidence.map(function (e) { return h('li', null, (e.step !== null ? 'step ' + e.step + ': ' : '') + e.detail); })) : null,
      checksList(trial.checks),
      baselineTrace
        ? h('div', { class: 'side-by-side' },
            h('div', null, h('h3', null, 'baseline'), timeline(baselineTrace, [])),
            h('div', null, h('h3', null, 'current'), timeline(currentTrace, trial.evidence)))
        : timeline(currentTrace, trial.evidence),
    ]);
    history.replaceState(null, '', '#task=' + encodeURIComponent(t.id));
    var first = detail.querySelector('.evidence');
    (first || detail).scrollIntoView({ block: 'nearest' });
  }

  // ---------- page ----------
  append(app, [header(), gateSection(), diffSection(), chartsSection(), tasksSection(), detail]);
  state.timings.built = performance.now();
  applyFilters();
  state.timings.table = performance.now();
  setTimeout(drawChartsLater, 0);
  var wanted = /^#task=(.+)$/.exec(location.hash);
  if (wanted) openTask(decodeURIComponent(wanted[1]));
  state.ready = true;
})();
