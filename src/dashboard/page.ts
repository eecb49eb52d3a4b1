/**
 * The dashboard page: a static shell, a stylesheet and a script, all served by the dashboard
 * itself. The script builds the DOM with textContent only, so nothing a server or a dataset
 * wrote (model names, error classes) can become markup.
 */

export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>infermeter dashboard</title>
<link rel="stylesheet" href="/assets/dashboard.css">
</head>
<body>
<header><h1>infermeter dashboard</h1><span id="where"></span></header>
<main>
<section id="live-section" hidden>
  <h2>In progress</h2>
  <div id="live-list"></div>
  <div id="live-panel" hidden>
    <h3 id="live-title"></h3>
    <dl id="live-figures"></dl>
    <img id="live-chart" alt="live request rate and TTFT p99">
  </div>
</section>
<section>
  <h2>Runs</h2>
  <p id="runs-empty" hidden>No runs in the history yet: run <code>infermeter run</code> (or <code>infermeter history --reindex</code> for older run directories).</p>
  <details id="columns"><summary>Columns</summary><div id="column-list"></div></details>
  <div class="table-box"><table id="runs"><thead><tr>
    <th>started (UTC)</th><th>run</th><th>model</th><th>target</th><th>load</th><th>ok/total</th>
    <th>TTFT p99 ms</th><th>TPOT p99 ms</th><th>out tok/s</th><th>accuracy [95% CI]</th><th>verdict</th><th>spec</th><th></th>
  </tr></thead><tbody></tbody></table></div>
</section>
<section id="detail-section" hidden>
  <h2>Run <span id="detail-run"></span></h2>
  <p id="quality-none" hidden>No answer checks in this run: quality figures come from datasets with checks (<code>--dataset-name eval</code>, or a JSONL file with <code>check</code> fields).</p>
  <div id="quality" hidden>
    <h3>Answer quality</h3>
    <p id="quality-summary"></p>
    <div class="table-box"><table id="quality-figures"><thead><tr><th>figure</th><th>value [95% CI] (k/n)</th></tr></thead><tbody></tbody></table></div>
    <div class="table-box"><table id="quality-tasks" hidden><thead><tr><th>task</th><th>checked</th><th>answered</th><th>accuracy [95% CI] (k/n)</th></tr></thead><tbody></tbody></table></div>
    <p id="quality-success"></p>
  </div>
</section>
<section id="trend-section" hidden>
  <h2>Trend <small id="trend-spec"></small></h2>
  <label>metric <select id="trend-metric"></select></label>
  <p id="trend-verdict"></p>
  <img id="trend-chart" alt="metric across runs of the spec">
</section>
<section id="curves-section" hidden>
  <h2>Load curves</h2>
  <label>model @ target <select id="curve-group"></select></label>
  <img id="curve-chart" alt="latency and throughput by offered load">
</section>
</main>
<script src="/assets/dashboard.js"></script>
</body>
</html>
`;
}

/** The runs table's columns, in order: the column chooser's names. */
const RUN_COLUMNS = ['started', 'run', 'model', 'target', 'load', 'ok/total', 'TTFT p99', 'TPOT p99', 'out tok/s', 'accuracy', 'verdict', 'spec', 'links'];
const columnClass = (c: string): string => `hide-${c.replace(/[^a-z0-9]+/gi, '-')}`;
/** One rule per column: the table's hide-<column> class hides it (the page's CSP allows no inline style). */
const COLUMN_CSS = RUN_COLUMNS.map((c, i) => `#runs.${columnClass(c)} th:nth-child(${i + 1}), #runs.${columnClass(c)} td:nth-child(${i + 1}) { display: none; }`).join('\n');

export const DASHBOARD_CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1f2328; background: #fafafa; }
header { display: flex; gap: 1em; align-items: baseline; padding: 0.8em 1.5em; background: #1f2328; color: #fff; }
header h1 { font-size: 1.2em; margin: 0; }
header span { opacity: 0.7; }
main { padding: 0 1.5em 2em; }
@media (max-width: 600px) { main { padding: 0 0.5em 1em; } header { padding: 0.8em; flex-wrap: wrap; } section { padding: 0.5em; } }
section { background: #fff; border: 1px solid #e1e4e8; border-radius: 6px; padding: 0.5em 1em 1em; margin-top: 1em; }
h2 { font-size: 1.05em; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 0.3em 0.4em; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
td.text { max-width: 10em; overflow: hidden; text-overflow: ellipsis; }
.table-box { max-width: 100%; overflow-x: auto; }
#columns { margin-bottom: 0.5em; }
#column-list { display: flex; flex-wrap: wrap; gap: 0.2em 1em; padding: 0.3em 0; }
tr.stage td:first-child { padding-left: 1.6em; }
tr.stage { background: #fbfbfb; }
tr.sweep td:first-child::before { content: '▸ '; }
tr.sweep.open td:first-child::before { content: '▾ '; }
td.num { text-align: right; }
tr.selected { background: #eef5ff; }
tbody tr { cursor: pointer; }
.bad { color: #c62828; font-weight: 600; }
.note { color: #57606a; }
.good { color: #2e7d32; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dt { color: #57606a; }
label { display: inline-flex; gap: 0.4em; align-items: center; max-width: 100%; }
select { min-width: 0; max-width: 100%; }
img { max-width: 100%; display: block; margin-top: 0.5em; }
button.live { margin-right: 0.5em; }
${COLUMN_CSS}
`;

/** The page's script (plain ES2020, no build step, no library). */
export const DASHBOARD_JS = `'use strict';
const $ = (id) => document.getElementById(id);
const fmt = (v, d) => (typeof v === 'number' ? v.toFixed(d) : '—');
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function pct(v) { return (v * 100).toFixed(1); }
function plural(n, one, many) { return n + ' ' + (n === 1 ? one : (many || one + 's')); }
// Columns the runs table can show; a person's choice is kept in localStorage. Hidden by default: the least read.
const COLUMNS = ${JSON.stringify(RUN_COLUMNS)};
const DEFAULT_HIDDEN = ['target', 'spec'];
function hiddenColumns() {
  try { const v = JSON.parse(localStorage.getItem('infermeter.hiddenColumns')); if (Array.isArray(v)) return v; } catch (e) { /* no storage */ }
  return DEFAULT_HIDDEN;
}
function applyColumns() {
  const hidden = hiddenColumns();
  for (const c of COLUMNS) $('runs').classList.toggle('hide-' + c.replace(/[^a-z0-9]+/gi, '-'), hidden.includes(c));
}
function columnChooser() {
  const list = $('column-list');
  list.replaceChildren();
  const hidden = hiddenColumns();
  for (const c of COLUMNS) {
    const label = el('label');
    const box = el('input');
    box.type = 'checkbox';
    box.checked = !hidden.includes(c);
    box.dataset.column = c;
    box.addEventListener('change', () => {
      const now = [...list.querySelectorAll('input')].filter((b) => !b.checked).map((b) => b.dataset.column);
      try { localStorage.setItem('infermeter.hiddenColumns', JSON.stringify(now)); } catch (e) { /* no storage */ }
      applyColumns();
    });
    label.append(box, ' ' + c);
    list.append(label);
  }
  applyColumns();
}
function accuracyCell(r) {
  if (typeof r.accuracy !== 'number') return '—';
  const ci = typeof r.accuracy_ci_low === 'number' && typeof r.accuracy_ci_high === 'number' ? ' [' + pct(r.accuracy_ci_low) + '–' + pct(r.accuracy_ci_high) + '%]' : '';
  return pct(r.accuracy) + '%' + ci;
}
function fillTable(sel, rows) {
  const body = document.querySelector(sel + ' tbody');
  body.replaceChildren();
  for (const cells of rows) {
    const tr = el('tr');
    cells.forEach((c, i) => tr.append(el('td', c, i > 0 ? 'num' : '')));
    body.append(tr);
  }
}
function showDetail(r) {
  $('detail-section').hidden = false;
  $('detail-run').textContent = r.run_id;
  delete document.body.dataset.detail;
  getJson('/api/runs/' + encodeURIComponent(r.run_id) + '/quality').then((d) => {
    if ($('detail-run').textContent !== r.run_id) return;
    const q = d.quality;
    $('quality-none').hidden = q !== null;
    $('quality').hidden = q === null;
    document.body.dataset.detail = r.run_id;
    if (q === null) return;
    $('quality-summary').textContent = q.summary;
    fillTable('#quality-figures', q.figures);
    $('quality-tasks').hidden = q.tasks.length === 0;
    fillTable('#quality-tasks', q.tasks);
    $('quality-success').textContent = q.success;
  }).catch((err) => { $('quality-none').hidden = false; $('quality-none').textContent = String(err); });
}
function verdict(r) {
  if (r.interrupted) return ['interrupted', 'bad'];
  if (r.valid === false) return ['INVALID', 'bad'];
  if (r.slo_pass === false) return ['SLO FAIL', 'bad'];
  if (r.slo_pass === true) return ['SLO ok', 'good'];
  return [r.valid === true ? 'valid' : '—', r.valid === true ? 'good' : ''];
}
let state = { spec: null, metric: 'ttft_p99_ms', liveSource: null };

async function getJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(url + ': HTTP ' + res.status);
  return res.json();
}

function showTrend() {
  if (!state.spec) return;
  $('trend-section').hidden = false;
  $('trend-spec').textContent = 'spec ' + state.spec;
  const q = 'spec=' + encodeURIComponent(state.spec) + '&metric=' + encodeURIComponent(state.metric);
  $('trend-chart').src = '/charts/trend.svg?' + q;
  getJson('/api/trend?' + q).then((t) => {
    const r = t.regression;
    $('trend-verdict').textContent = r
      ? 'Regression: ' + fmt(r.previous, 2) + ' → ' + fmt(r.value, 2) + ' (' + (r.change * 100).toFixed(1) + '%) in ' + r.run_id
      : plural(t.points.length, 'run') + '; no regression against the previous comparable run';
    $('trend-verdict').className = r ? 'bad' : '';
  }).catch(() => {});
}

function renderRuns(runs) {
  const body = document.querySelector('#runs tbody');
  body.replaceChildren();
  $('runs-empty').hidden = runs.length > 0;
  // A sweep's stages (kind 'sweep', one directory): one row for the sweep, its stages folded under it.
  const sweeps = new Map();
  for (const r of runs) if (r.kind === 'sweep') { const k = r.dir || r.run_id; if (!sweeps.has(k)) sweeps.set(k, []); sweeps.get(k).push(r); }
  const shown = new Set();
  for (const r of runs) {
    if (r.kind === 'sweep') {
      const k = r.dir || r.run_id;
      if (shown.has(k)) continue;
      shown.add(k);
      const stages = sweeps.get(k);
      const head = el('tr', undefined, 'sweep');
      head.dataset.sweep = k;
      const cells = [String(r.started_at).replace('T', ' ').replace('Z', ''), k, r.model, r.target, 'sweep: ' + plural(stages.length, 'stage')];
      for (const c of cells) head.append(el('td', c, 'text'));
      const rest = el('td', 'click to show its stages', 'note');
      rest.colSpan = COLUMNS.length - cells.length;
      head.append(rest);
      head.title = k;
      const rows = stages.map((st) => runRow(st, body, 'stage'));
      head.addEventListener('click', () => {
        const open = head.classList.toggle('open');
        for (const x of rows) x.hidden = !open;
      });
      body.append(head);
      for (const x of rows) { x.hidden = true; body.append(x); }
      continue;
    }
    body.append(runRow(r, body));
  }
}

function runRow(r, body, cls) {
  {
    const tr = el('tr', undefined, cls);
    tr.dataset.run = r.run_id;
    const [v, vc] = verdict(r);
    const cells = [
      [String(r.started_at).replace('T', ' ').replace(/:\\d\\dZ$|Z$/, '')], [r.run_id, 'text'], [r.model, 'text'], [r.target, 'text'], [r.load_shape, 'text'],
      [fmt(r.ok, 0) + '/' + fmt(r.requests, 0), 'num'], [fmt(r.ttft_p99_ms, 2), 'num'], [fmt(r.tpot_p99_ms, 2), 'num'],
      [fmt(r.output_throughput, 1), 'num'], [accuracyCell(r), 'num'], [v, vc], [String(r.spec_hash).slice(0, 8)],
    ];
    for (const [text, c] of cells) {
      const td = el('td', text, c);
      if (c === 'text') td.title = String(text ?? '');
      tr.append(td);
    }
    const links = el('td');
    // A sweep's stages share their sweep's directory (r.dir); its document is sweep.json.
    const folder = encodeURIComponent(r.dir || r.run_id);
    const doc = r.kind === 'sweep' ? 'sweep.json' : 'result.json';
    const a = el('a', 'report');
    a.href = '/runs/' + folder + '/report';
    const j = el('a', doc);
    j.href = '/runs/' + folder + '/files/' + doc;
    links.append(a, ' · ', j);
    tr.append(links);
    tr.addEventListener('click', (ev) => {
      if (ev.target instanceof HTMLAnchorElement) return;
      for (const x of body.querySelectorAll('tr.selected')) x.classList.remove('selected');
      tr.classList.add('selected');
      state.spec = r.spec_hash;
      showTrend();
      showDetail(r);
    });
    return tr;
  }
}

function renderLiveFigures(f) {
  const dl = $('live-figures');
  dl.replaceChildren();
  const classes = Object.entries(f.failed_by_class || {}).map(([k, n]) => k + ' ' + n).join(', ');
  const rows = [
    ['progress', (f.total !== null ? f.done + '/' + f.total : f.done + ' done') + (f.fraction !== null ? ' (' + (f.fraction * 100).toFixed(0) + '%)' : '')],
    ['elapsed / remaining', (f.elapsed_ms / 1000).toFixed(0) + ' s / ' + (f.remaining_ms === null ? '—' : '~' + (f.remaining_ms / 1000).toFixed(0) + ' s')],
    ['in flight', f.inflight + (f.queued ? ' (+' + f.queued + ' queued)' : '')],
    ['ok / failed', f.ok + ' / ' + f.failed + (classes ? ' (' + classes + ')' : '')],
    ['rate (last ' + fmt(f.window_s, 0) + ' s)', fmt(f.request_rate, 1) + ' req/s, ' + fmt(f.output_tokens_per_s, 0) + ' output tok/s'],
    ['TTFT p50 / p99', fmt(f.ttft_p50_ms, 1) + ' / ' + fmt(f.ttft_p99_ms, 1) + ' ms'],
    ['TPOT p50 / p99', fmt(f.tpot_p50_ms, 1) + ' / ' + fmt(f.tpot_p99_ms, 1) + ' ms'],
    ['client', f.client.state + (f.client.reason ? ': ' + f.client.reason : '')],
  ];
  // Answer checks are judged after their request ends: the accuracy so far, over answered requests.
  const q = f.quality;
  if (q) rows.splice(rows.length - 1, 0, ['accuracy (so far)', (q.answered > 0 ? pct(q.passed / q.answered) + '%' : '—') + ' (' + q.passed + '/' + q.answered + ' answered)']);
  for (const [k, v] of rows) dl.append(el('dt', k), el('dd', v, k === 'client' && f.client.state === 'at risk' ? 'bad' : ''));
}

function follow(id) {
  if (state.liveSource) state.liveSource.close();
  $('live-panel').hidden = false;
  $('live-title').textContent = id;
  const src = new EventSource('/api/live/' + encodeURIComponent(id));
  state.liveSource = src;
  let frames = 0;
  src.addEventListener('frame', (ev) => {
    renderLiveFigures(JSON.parse(ev.data));
    if (frames++ % 2 === 0) $('live-chart').src = '/charts/live/' + encodeURIComponent(id) + '.svg?n=' + frames;
  });
  src.addEventListener('end', () => {
    src.close();
    $('live-title').textContent = id + ' — finished';
    $('live-chart').src = '/charts/live/' + encodeURIComponent(id) + '.svg?end=1';
    load();
  });
}

function renderLive(live) {
  $('live-section').hidden = live.length === 0 && !state.liveSource;
  const list = $('live-list');
  list.replaceChildren();
  for (const r of live) {
    const b = el('button', r.run_id + (r.model ? ' (' + r.model + ')' : ''), 'live');
    b.addEventListener('click', () => follow(r.run_id));
    list.append(b);
  }
}

async function loadCurves() {
  const groups = await getJson('/api/load-curves');
  $('curves-section').hidden = groups.length === 0;
  const sel = $('curve-group');
  sel.replaceChildren();
  for (const g of groups) {
    const o = el('option', g.model + ' @ ' + g.target + ' ' + g.endpoint + ' (' + plural(g.n, 'load') + ')');
    o.value = JSON.stringify([g.model, g.target, g.endpoint]);
    sel.append(o);
  }
  const draw = () => {
    if (!sel.value) return;
    const [model, target, endpoint] = JSON.parse(sel.value);
    $('curve-chart').src = '/charts/load-curve.svg?model=' + encodeURIComponent(model) + '&target=' + encodeURIComponent(target) + '&endpoint=' + encodeURIComponent(endpoint);
  };
  sel.onchange = draw;
  draw();
}

async function load() {
  const data = await getJson('/api/runs');
  if (!$('column-list').children.length) columnChooser();
  $('where').textContent = data.results_dir + '/';
  const sel = $('trend-metric');
  if (sel.options.length === 0) {
    for (const m of data.metrics) sel.append(el('option', m));
    sel.value = state.metric;
    sel.onchange = () => { state.metric = sel.value; showTrend(); };
  }
  renderRuns(data.runs);
  renderLive(data.live);
  if (!state.spec && data.runs.length > 0) {
    state.spec = data.runs[0].spec_hash;
    showTrend();
    showDetail(data.runs[0]);
    const first = document.querySelector('#runs tbody tr[data-run]');
    if (first) first.classList.add('selected');
  }
  await loadCurves();
  document.body.dataset.loaded = 'true';
}

load().catch((err) => { document.body.dataset.loaded = 'error'; $('where').textContent = String(err); });
setInterval(() => getJson('/api/runs').then((d) => renderLive(d.live)).catch(() => {}), 5000);
`;
