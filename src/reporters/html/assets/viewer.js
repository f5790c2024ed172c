// tracegate report viewer. Plain browser JavaScript, inlined into report.html.
// Every piece of report data is untrusted: it reaches the page only as text nodes and
// attribute values set through the DOM, never as HTML.
(function () {
  'use strict';

  var PAGE = 100;
  var state = { ready: false, opening: false, chartsRendered: 0, chartErrors: [], filtered: 0, shown: 0, page: 0, pages: 1 };
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
    if (s.cost) {
      var usd = s.cost.usd !== 0 && s.cost.usd < 0.01 ? s.cost.usd.toPrecision(4) : s.cost.usd.toFixed(2);
      cards.push(['cost (prices as of ' + s.cost.as_of + ')', '$' + usd]);
    }
    if (s.epochs > 1) {
      cards.push(['pass@' + s.epochs, pct(s.pass_at_k)], ['pass^' + s.epochs, pct(s.pass_hat_k)], ['flaky', s.flaky]);
    }
    return h('header', null,
      h('h1', null, 'tracegate report'),
      h('p', { class: 'suites' }, run.suites.map(function (x) { return x.path; }).join(', '),
        run.variant ? ' · variant ' + run.variant.name : '', ' · ', new Date(run.started_at).toLocaleString()),
      h('p', { class: 'model mode-' + mode, id: 'model-label' }, data.modelLabel),
      data.judgeLabel ? h('p', { class: 'model mode-' + token(run.judge.mode), id: 'judge-label' }, data.judgeLabel) : null,
      data.notice ? h('p', { class: 'warning', id: 'run-notice' }, data.notice) : null,
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
      sig ? h('p', { class: 'verdict verdict-' + token(sig.verdict) }, 'Paired test (' + sig.method.split('_').join(' ') + '): ', h('strong', null, sig.verdict),
        ' — change ' + signedPts(sig.delta) + ', ' + Number((sig.confidence * 100).toFixed(1)) + '% interval [' + signedPts(sig.ci_low) + ', ' + signedPts(sig.ci_high) +
        '], p = ' + sig.p_value.toPrecision(3) + ', minimum detectable effect ' + pct(sig.minimum_detectable_effect) + ' over ' + sig.pairs + ' paired tasks') : null,
      sig && sig.why ? h('p', { class: 'muted' }, 'Why this test: ' + sig.why) : null,
      diff.notes.length ? h('ul', { class: 'notes' }, diff.notes.map(function (n) { return h('li', null, n); })) : null);
  }

  /** What `--epochs auto` did: its looks at the data, and why it stopped. */
  function adaptiveSection() {
    var a = report.run.adaptive;
    if (!a) return null;
    var limits = 'at most ' + a.max_epochs + ' trials a task' +
      (a.budget_trials !== null ? ', ' + a.budget_trials + ' in all' : '') +
      (a.budget_tokens !== null ? ', ' + a.budget_tokens.toLocaleString() + ' tokens' : '');
    return h('section', { id: 'adaptive' },
      h('h2', null, 'Epochs: auto'),
      h('p', null, a.trials_run + ' trials' + (a.sides === 'both' ? ' (both variants)' : '') + ' in ' + a.stages.length + (a.stages.length === 1 ? ' look' : ' looks') +
        ' (' + limits + '; overall alpha ' + a.alpha + '). Stopped: ', h('strong', null, a.stop_reason)),
      a.stages.length ? h('table', { class: 'rules' },
        h('thead', null, h('tr', null, ['look', 'trials so far', 'information', '|Z| boundary', 'p', 'verdict', 'tasks rerun'].map(function (c) { return h('th', null, c); }))),
        h('tbody', null, a.stages.map(function (st) {
          return h('tr', null, h('td', null, String(st.stage)), h('td', null, String(st.trials_run)), h('td', null, pct(st.fraction)),
            h('td', null, st.boundary.toFixed(2)), h('td', null, st.p_value.toPrecision(3)), h('td', null, st.verdict), h('td', null, String(st.rerun)));
        }))) : null,
      h('p', { class: 'muted' }, 'Each task\'s trial count and why it got no more are in its detail view.'));
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
  // Rows arrive in display order as arrays (see pageData.ts); only one page of them is in the DOM.
  var rows = data.rows.map(function (a) {
    return {
      task: { id: a[0], status: a[1], flaky: a[2] === 1, failure_reason: a[4], failure_layer: a[5], steps: a[6], pass_fraction: a[7], tags: a[8], duration_ms: a[9], answer_preview: a[10], error: a[11] ? { code: a[11], message: a[12] || '' } : null },
      change: a[3],
      detail: a[13],
      search: null,
    };
  });
  var rowById = {};
  rows.forEach(function (r) { rowById[r.task.id] = r; });
  /** The lower-cased text the search box matches, built on the first search. */
  function searchText(r) {
    if (r.search === null) {
      var t = r.task;
      r.search = [t.id, t.failure_reason || '', t.failure_layer || '', t.answer_preview || '', t.tags.join(' '), t.error ? t.error.message : ''].join(' ').toLowerCase();
    }
    return r.search;
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
  function pageButton(id, label, target) {
    return h('button', { id: id, type: 'button', on: { click: function () { showPage(target()); } } }, label);
  }
  var pageLabel = h('span', { id: 'page-label' });
  var pager = h('div', { class: 'pager', id: 'pager' },
    pageButton('page-first', '« first', function () { return 0; }),
    pageButton('page-prev', '‹ previous', function () { return state.page - 1; }),
    pageLabel,
    pageButton('page-next', 'next ›', function () { return state.page + 1; }),
    pageButton('page-last', 'last »', function () { return state.pages - 1; }));
  var current = rows;
  var selectedId = null;

  function applyFilters() {
    var status = filters.status.value, layer = filters.layer.value, reason = filters.reason.value, tag = filters.tag.value;
    var change = filters.change ? filters.change.value : '';
    var text = filters.text.value.trim().toLowerCase();
    current = !status && !layer && !reason && !tag && !change && !text ? rows : rows.filter(function (r) {
      var t = r.task;
      return (!status || t.status === status || (status === 'flaky' && t.flaky)) &&
        (!layer || t.failure_layer === layer) && (!reason || t.failure_reason === reason) &&
        (!tag || t.tags.indexOf(tag) >= 0) && (!change || r.change === change) &&
        (!text || searchText(r).indexOf(text) >= 0);
    });
    state.filtered = current.length;
    showPage(0);
  }

  function showPage(index) {
    state.pages = Math.max(1, Math.ceil(current.length / PAGE));
    state.page = Math.max(0, Math.min(state.pages - 1, index));
    var start = state.page * PAGE;
    var end = Math.min(start + PAGE, current.length);
    var fragment = document.createDocumentFragment();
    for (var i = start; i < end; i++) fragment.appendChild(rowFor(current[i]));
    tbody.textContent = '';
    tbody.appendChild(fragment);
    state.shown = end - start;
    var filtered = current.length !== rows.length ? ' (filtered from ' + rows.length + ')' : '';
    countLine.textContent = state.pages > 1
      ? 'showing ' + (start + 1) + '–' + end + ' of ' + current.length + ' tasks' + filtered
      : 'showing ' + current.length + ' of ' + current.length + ' tasks' + filtered;
    pager.hidden = state.pages <= 1;
    pageLabel.textContent = 'page ' + (state.page + 1) + ' of ' + state.pages;
    document.getElementById('page-first').disabled = document.getElementById('page-prev').disabled = state.page === 0;
    document.getElementById('page-next').disabled = document.getElementById('page-last').disabled = state.page === state.pages - 1;
  }

  /** Turns the table to the page that holds a task (when the filters show it) and marks its row. */
  function revealRow(id) {
    selectedId = id;
    var index = id === null ? -1 : current.indexOf(rowById[id]);
    if (index >= 0 && Math.floor(index / PAGE) !== state.page) showPage(Math.floor(index / PAGE));
    tbody.querySelectorAll('tr.selected').forEach(function (tr) { tr.classList.remove('selected'); });
    tbody.querySelectorAll('tr.task').forEach(function (tr) { if (tr.dataset.id === id) tr.classList.add('selected'); });
  }

  function rowFor(r) {
    var t = r.task;
    return h('tr', { class: 'task status-' + token(t.status) + (t.id === selectedId ? ' selected' : ''), tabindex: '0', data: { id: t.id } },
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
      select('layer', 'layer', data.facets.layer),
      select('reason', 'reason', data.facets.reason),
      select('tag', 'tag', data.facets.tag),
      diff ? select('change', 'change', data.facets.change) : null,
      (filters.text = h('input', { id: 'filter-text', type: 'search', placeholder: 'search id, reason, answer…', 'aria-label': 'search', on: { input: applyFilters } })),
      countLine);
    var headRow = h('tr', null, h('th', null, 'status'), diff ? h('th', null, 'change') : null, h('th', null, 'task'), h('th', null, 'reason'),
      h('th', null, 'layer'), h('th', null, 'steps'), h('th', null, 'pass'), h('th', null, 'tags'), h('th', null, 'time'));
    return h('section', { id: 'tasks' }, h('h2', null, 'Tasks'), controls,
      h('table', { class: 'tasks' }, h('thead', null, headRow), tbody), pager);
  }

  // ---------- task detail and trace viewer ----------
  // Task details and traces are gzip + base64 inert blocks after this script: they exist only
  // once the document is parsed, and each is inflated on first use.
  var documentParsed = new Promise(function (resolve) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', resolve);
    else resolve();
  });
  var blockIndex = null;
  var blockCache = {};
  function inflateBlock(kind, key) {
    if (!blockIndex) {
      blockIndex = { trace: {}, details: {} };
      document.querySelectorAll('script.trace').forEach(function (el) { blockIndex.trace[el.dataset.file] = el; });
      document.querySelectorAll('script.details').forEach(function (el) { blockIndex.details[el.dataset.chunk] = el; });
    }
    var cacheKey = kind + ':' + key;
    if (!(cacheKey in blockCache)) {
      var el = blockIndex[kind][key];
      blockCache[cacheKey] = !el ? Promise.resolve(null) : (function () {
        var binary = atob(el.textContent.trim());
        var bytes = new Uint8Array(binary.length);
        for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
        var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
        return new Response(stream).text().then(JSON.parse);
      })();
    }
    return blockCache[cacheKey];
  }
  /** One embedded trace, or null when the page does not hold it. */
  function loadTrace(file) {
    if (!file) return Promise.resolve(null);
    return documentParsed.then(function () { return inflateBlock('trace', file); });
  }
  /** What the detail view needs of a task beyond its row (checks, evidence, trials, trace files). */
  function loadDetail(index) {
    return documentParsed.then(function () { return inflateBlock('details', String(Math.floor(index / data.detailChunk))); })
      .then(function (chunk) {
        if (!chunk) throw new Error('the details of this task are missing from the page');
        return chunk[index % data.detailChunk];
      });
  }
  /** A trace path the page may link to: relative, inside the report's folder. */
  function traceLink(file) {
    if (!file || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.:\/-]+$/.test(file) || /(^|\/)\.\.(\/|$)/.test(file)) return null;
    return h('a', { href: file, target: '_blank', rel: 'noopener noreferrer', class: 'trace-link' }, file);
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

  function timeline(trace, evidence, file) {
    if (!trace) {
      var link = traceLink(file);
      return h('p', { class: 'muted not-embedded' }, 'This trace is not embedded in the page; ',
        link ? ['open ', link, ' (beside report.html) or run ', h('code', null, 'tracegate replay ' + file)] : 'see the traces folder beside report.json', '.');
    }
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
    var r = rowById[id];
    if (!r) return Promise.resolve();
    var ticket = ++opening;
    state.opening = true;
    return loadDetail(r.detail).then(function (more) {
      var t = Object.assign({}, r.task, more);
      var trials = trialsOf(t);
      var trial = trials.filter(function (x) { return x.epoch === epoch; })[0] || trials.filter(function (x) { return x.status === 'failed'; })[0] || trials[0];
      var change = r.change ? { change: r.change, baseline_trace_file: more.baseline_trace_file } : null;
      return Promise.all([loadTrace(change && change.baseline_trace_file), loadTrace(trial.trace_file)]).then(function (loaded) {
        if (ticket !== opening) return; // a later click won
        renderDetail(t, trials, trial, change, loaded[0], loaded[1]);
        revealRow(t.id);
        state.opening = false;
      });
    }).catch(function (error) {
      if (ticket !== opening) return;
      detail.hidden = false;
      detail.textContent = '';
      append(detail, h('p', { class: 'warning' }, 'could not open the task: ' + error.message));
      state.opening = false;
    });
  }

  function renderDetail(t, trials, trial, change, baselineTrace, currentTrace) {
    detail.textContent = '';
    detail.hidden = false;
    append(detail, [
      h('div', { class: 'detail-head' },
        h('h2', null, t.id), badge(t.status), t.flaky ? badge('flaky') : null, change ? badge(change.change.replace('_', ' '), change.change) : null,
        h('button', { type: 'button', class: 'close', on: { click: function () { detail.hidden = true; history.replaceState(null, '', '#'); revealRow(null); } } }, 'close')),
      trials.length > 1 ? h('p', { class: 'trials' }, 'trials: ', trials.map(function (x) {
        return h('button', { type: 'button', class: 'trial ' + token(x.status) + (x === trial ? ' current' : ''), on: { click: function () { openTask(t.id, x.epoch); } } }, '#' + x.epoch + ' ' + x.status);
      })) : null,
      t.prompt !== null && t.prompt !== undefined ? h('div', { class: 'prompt' }, h('h4', null, 'prompt'), h('pre', null, t.prompt)) : null,
      t.adaptive ? h('p', { class: 'adaptive' }, 'epochs auto: ' + t.adaptive.trials + (t.adaptive.trials === 1 ? ' trial' : ' trials') + ' · stopped: ', h('em', null, t.adaptive.reason)) : null,
      trial.failure_reason ? h('p', null, 'reason ', h('strong', null, trial.failure_reason), ' in the ', h('strong', null, trial.failure_layer), ' layer') : null,
      trial.error ? h('p', { class: 'warning' }, trial.error.code + ': ' + trial.error.message) : null,
      trial.evidence.length ? h('ul', { class: 'evidence-list' }, trial.evidence.map(function (e) { return h('li', null, (e.step !== null ? 'step ' + e.step + ': ' : '') + e.detail); })) : null,
      checksList(trial.checks),
      baselineTrace
        ? h('div', { class: 'side-by-side' },
            h('div', null, h('h3', null, 'baseline'), timeline(baselineTrace, [], change.baseline_trace_file)),
            h('div', null, h('h3', null, 'current'), timeline(currentTrace, trial.evidence, trial.trace_file)))
        : timeline(currentTrace, trial.evidence, trial.trace_file),
    ]);
    history.replaceState(null, '', '#task=' + encodeURIComponent(t.id));
    var first = detail.querySelector('.evidence');
    (first || detail).scrollIntoView({ block: 'nearest' });
  }

  // ---------- page ----------
  append(app, [header(), gateSection(), diffSection(), adaptiveSection(), chartsSection(), tasksSection(), detail]);
  state.timings.built = performance.now();
  applyFilters();
  state.timings.table = performance.now();
  // vega's scripts come after this one; they have all run once the document is parsed.
  documentParsed.then(function () { setTimeout(drawChartsLater, 0); });
  function openFromHash() {
    var wanted = /^#task=(.+)$/.exec(location.hash);
    if (!wanted) return;
    // A hand-edited or truncated link (#task=%E0%A4%A) is not valid percent-encoding: use it as written.
    var id;
    try { id = decodeURIComponent(wanted[1]); } catch (_) { id = wanted[1]; }
    openTask(id);
  }
  window.addEventListener('hashchange', openFromHash);
  openFromHash();
  state.ready = true;
})();
