// @ts-check
// Insights as pictures: the figures the /insights operations answer (docs/insights.md), over a range and
// a scope (the whole company, a warehouse or a wall, whose time zone the days and hours are), as charts
// drawn by Chart.js (served by the service itself, /hub/vendor), each with a table view and a CSV
// download of the very rows the chart draws. Nothing is computed here: every number is an answer's.
import { $, api, claims, el, show, signedInWalls, signInForm, token } from './common.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {Responses['ListWalls'][number]} Wall */
/** @typedef {Responses['GetSortingStatistics']} Stats */
/** The form's fields: dates (YYYY-MM-DD) and the scope ('all', 'warehouse:N', 'wall:N'). */
/** @typedef {{ from: string, to: string, scope: string, day: string }} Filters */
/** @typedef {{ params: Record<string, string>, walls: Wall[], kind: 'all' | 'wall' | 'warehouse', id?: string }} Scope */
/**
 * Every answer a render draws.
 * @typedef {{
 *   stats: Stats, hourly: Responses['GetDailyUnitSortingStats'], units: Responses['GetUnitSortingStatsForDateRange'],
 *   orders: Responses['GetOrderSortingStatsForDateRange'], walls: { wall: Wall, stats: Stats }[],
 *   sorters: (Stats['byUser'][number] & { name: string })[],
 * }} Answers
 */
/** @typedef {(string | number)[]} Row */
/** @typedef {{ label: string, num?: boolean }} Column */
/** The part of a Chart.js configuration this page writes (https://www.chartjs.org/docs/latest/configuration/). */
/** @typedef {{ type?: string, label: string, data: unknown[], [option: string]: unknown }} Dataset */
/** @typedef {{ type: string, data: { labels: unknown[], datasets: Dataset[] }, options: { scales: Record<string, Record<string, unknown>>, [option: string]: unknown } }} ChartConfig */
/**
 * A chart card: its table (columns, rows) and the chart of the same rows.
 * @typedef {{
 *   id: string, title: string, note: string, file: string, columns: Column[], rows: Row[], empty?: string,
 *   horizontal?: boolean, chart: (rows: Row[]) => ChartConfig,
 * }} Card
 */
/**
 * The part of Chart.js this page uses.
 * @typedef {{
 *   new (canvas: HTMLCanvasElement, config: ChartConfig): { destroy(): void },
 *   defaults: { font: { family: string, size: number }, color: string, animation: boolean, maintainAspectRatio: boolean },
 * }} ChartClass
 */

/** Chart.js, loaded by its own script tag (/hub/vendor/chart.umd.min.js); undefined when it failed to load. */
const Chart = /** @type {{ Chart?: ChartClass }} */ (/** @type {unknown} */ (window)).Chart;
const COLORS = { units: '#2f5bd3', scans: '#8a94a6', refused: '#b3261e', orders: '#1f8a4c' };
// Per-wall figures are one request each: a few at a time, so a big site does not flood the service.
const PARALLEL = 4;

/**
 * @type {{
 *   walls: Wall[], names: Map<number, string>, charts: Map<string, { destroy(): void }>,
 *   views: Map<string, string>, run: number,
 * }}
 */
const state = { walls: [], names: new Map(), charts: new Map(), views: new Map(), run: 0 };

if (Chart) {
  Chart.defaults.font.family = getComputedStyle(document.documentElement).fontFamily;
  Chart.defaults.font.size = 13;
  Chart.defaults.color = '#1c1f24';
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
}

// ---- Refusal reasons in a manager's words (the code, stable for integrators, stays in the table and CSV)

/** @type {Record<string, string>} */
const REASONS = {
  'barcode-not-recognized': 'Unknown barcode',
  'no-fulfillable-order': 'No order needs the unit',
  'no-empty-slot': 'No empty slot for a new order',
  'units-exceed-remaining': 'More units than the order needs',
  'wrong-slot': 'Put in the wrong slot',
  'shipper-barcode-not-accepted': 'Shipper barcode scanned by mistake',
  'sorter-barcode-not-accepted': 'Sorter barcode scanned by mistake',
  'picklist-not-open': 'Picklist not open',
  'picklist-required': 'No picklist chosen',
  'wall-inactive': 'Wall switched off',
  'session-ended': 'Sorter session had ended',
  'sorter-limit-reached': 'Wall already has its most sorters',
  'item-already-confirmed': 'Unit already confirmed',
  'item-already-cancelled': 'Unit already cancelled',
  'slot-not-swappable': 'Slot cannot take the swap',
  'slot-not-empty': 'Slot still holds an order',
  'slot-not-complete': 'Slot released before complete',
  'invalid-transition': 'Not possible in the current state',
  'idempotency-key-reused': 'Retried scan differed from first',
  'invalid-transparency-code': 'Transparency code not valid',
  'transparency-code-exists': 'Transparency code already recorded',
  'transparency-codes-complete': 'Transparency codes complete',
  'wall-name-taken': 'Wall name already in use',
  'serial-attached-elsewhere': 'Slot serial attached to another wall',
  'crc-collision': 'Slot serial clashes with another',
  forbidden: 'Not allowed for the role',
  'subscription-disabled': 'Sorting subscription disabled',
  'pin-required': 'PIN required',
  'pin-invalid': 'Wrong PIN',
  'validation-failed': 'Input not valid',
  'not-found': 'Not found',
};
/** A refusal code in words; a code this page does not know yet, spelled out ("printer-in-use": "Printer in use"). */
const reasonText = (/** @type {string} */ code) => REASONS[code] || `${code.charAt(0).toUpperCase()}${code.slice(1).replaceAll('-', ' ')}`;

// ---- Dates (YYYY-MM-DD of the browser's calendar; the service reads them in the scope's time zone)

const pad = (/** @type {number} */ n) => String(n).padStart(2, '0');
const isoDay = (/** @type {Date} */ d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
/** @param {number} n */
function daysAgo(n) {
  const d = new Date();
  d.setDate(d.getDate() - n);
  return isoDay(d);
}
/** An instant of an answer, as the service states it (UTC), to the minute. */
const utc = (/** @type {string} */ iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

// ---- Start, sign-in, refusal

async function start() {
  const walls = await signedInWalls(signOut);
  if (!walls) return;
  state.walls = walls;
  $('#to-hub').hidden = false;
  fillFilters();
  await load();
}

/** The filter form's fields. */
const fieldsOf = (/** @type {HTMLFormElement} */ form) =>
  /** @type {HTMLFormControlsCollection & { scope: HTMLSelectElement, from: HTMLInputElement, to: HTMLInputElement, day: HTMLInputElement }} */ (form.elements);

function fillFilters() {
  /** @type {HTMLFormElement} */
  const form = $('#filters');
  const fields = fieldsOf(form);
  const select = fields.scope;
  const warehouses = [...new Set(state.walls.map((w) => w.warehouseId).filter((id) => id !== null))].sort((a, b) => a - b);
  select.replaceChildren(
    el('option', { value: 'all', textContent: 'Whole company (UTC)' }),
    ...warehouses.map((id) => el('option', { value: `warehouse:${id}`, textContent: `Warehouse ${id}` })),
    ...state.walls.map((w) => el('option', { value: `wall:${w.id}`, textContent: `Wall ${w.name}` })),
  );
  const q = new URLSearchParams(location.search);
  const day = (/** @type {string} */ k, /** @type {string} */ fallback) => (DAY_RE.test(q.get(k) || '') ? /** @type {string} */ (q.get(k)) : fallback);
  fields.from.value = day('from', daysAgo(6));
  fields.to.value = day('to', daysAgo(0));
  fields.day.value = day('day', fields.to.value);
  const scope = q.get('scope');
  select.value = scope !== null && [...select.options].some((o) => o.value === scope) ? scope : 'all';
}

function refused() {
  const roles = claims().roles || [];
  $('#refused-detail').textContent =
    `You are signed in${roles.length ? ` as ${roles.join(' and ')}` : ''}. The sorting figures are for Managers and Admins: sign in with such an account, or ask an Admin for the role.`;
  show('refused');
}

function signOut() {
  token.clear();
  $('#sign-out').hidden = true;
  $('#to-hub').hidden = true;
  for (const c of state.charts.values()) c.destroy();
  state.charts.clear();
  begin();
}

// ---- Loading the figures

/**
 * @param {string} value
 * @returns {Scope}
 */
function scopeOf(value) {
  const [kind, id] = value.split(':');
  if (kind === 'wall') return { params: { wallId: id }, walls: state.walls.filter((w) => String(w.id) === id), kind, id };
  if (kind === 'warehouse') return { params: { warehouseId: id }, walls: state.walls.filter((w) => String(w.warehouseId) === id), kind, id };
  return { params: {}, walls: state.walls, kind: 'all' };
}

/** @param {Scope} scope */
function zoneText(scope) {
  if (scope.kind === 'wall') return `Days and hours of the time zone of wall ${scope.walls[0]?.name}'s warehouse (UTC when it has none).`;
  if (scope.kind === 'warehouse') return `Days and hours of warehouse ${scope.id}'s time zone (UTC when it has none); each wall below in its own warehouse's.`;
  return 'Days and hours in UTC (the whole company); each wall below in its warehouse\'s time zone.';
}

/**
 * Runs fn over items, at most `limit` at a time; answers the results in order.
 * @template T, U
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<U>} fn
 * @returns {Promise<U[]>}
 */
async function mapLimit(items, limit, fn) {
  /** @type {U[]} */
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * @param {number} userId
 * @returns {Promise<string>}
 */
async function nameOf(userId) {
  if (!state.names.has(userId)) {
    const name = await /** @type {Promise<Responses['GetEmployee']>} */ (api('GET', `/api/v1/employees/${userId}`)).then(
      (e) => `${e.firstName} ${e.lastName}`.trim() || e.email,
      () => `Employee ${userId}`,
    );
    state.names.set(userId, name);
  }
  return /** @type {string} */ (state.names.get(userId));
}

async function load() {
  /** @type {HTMLFormElement} */
  const form = $('#filters');
  const error = $('.form-error', form);
  // Text inputs and a select: every value is text.
  const f = /** @type {Filters} */ (Object.fromEntries(new FormData(form)));
  const scope = scopeOf(f.scope);
  const run = ++state.run;
  error.textContent = '';
  history.replaceState(null, '', `?${new URLSearchParams({ from: f.from, to: f.to, scope: f.scope, day: f.day })}`);
  const range = new URLSearchParams({ from: f.from, to: f.to, ...scope.params });
  const get = (/** @type {string} */ path, /** @type {URLSearchParams} */ q) => api('GET', `/api/v1/insights/${path}?${q}`);
  document.body.dataset.loading = 'true';
  /** @type {Answers} */
  let answers;
  try {
    const [stats, hourly, units, orders] = await Promise.all([
      /** @type {Promise<Stats>} */ (get('stats', new URLSearchParams({ ...Object.fromEntries(range), products: '0' }))),
      /** @type {Promise<Answers['hourly']>} */ (get('daily/units', new URLSearchParams({ date: f.day, ...scope.params }))),
      /** @type {Promise<Answers['units']>} */ (get('units/sorted', range)),
      /** @type {Promise<Answers['orders']>} */ (get('orders/sorted', range)),
    ]);
    const walls = await mapLimit(scope.walls, PARALLEL, (w) =>
      /** @type {Promise<Stats>} */ (get('stats', new URLSearchParams({ from: f.from, to: f.to, wallId: String(w.id), products: '0' }))).then((s) => ({ wall: w, stats: s })),
    );
    const sorters = await mapLimit(stats.byUser, PARALLEL, async (u) => ({ ...u, name: await nameOf(u.userId) }));
    answers = { stats, hourly, units, orders, walls, sorters };
  } catch (err) {
    if (run !== state.run) return;
    delete document.body.dataset.loading;
    if (err.status === 401) return signOut();
    if (err.status === 403) return refused();
    // The form stays, with the reason; no figure of another question stays beside it.
    show('insights');
    $('#zone').textContent = '';
    $('#tiles').hidden = true;
    $('#charts').hidden = true;
    error.textContent = err.detail || err.message;
    return;
  }
  if (run !== state.run) return; // a newer question was asked meanwhile
  show('insights');
  $('#tiles').hidden = false;
  $('#charts').hidden = false;
  render(answers, scope, f);
  delete document.body.dataset.loading;
}

// ---- Rendering

/**
 * @param {Answers} answers
 * @param {Scope} scope
 * @param {Filters} f
 */
function render({ stats, hourly, units, orders, walls, sorters }, scope, f) {
  $('#zone').textContent = `${zoneText(scope)} Counted from ${utc(stats.from)} to ${utc(stats.to)}.`;
  const tiles = [
    ['units', 'Units confirmed', stats.confirmedUnits],
    ['unitsPerHour', 'Units per hour', stats.unitsPerHour],
    ['scans', 'Scans', stats.scans],
    ['failedScans', 'Refused scans', stats.failedScans],
    ['sortedOrders', 'Orders sorted', stats.sortedOrders],
    ['cancelledItems', 'Items cancelled', stats.cancelledItems],
    ['averageSecondsToConfirm', 'Seconds to confirm', stats.averageSecondsToConfirm ?? '–'],
  ];
  $('#tiles').replaceChildren(...tiles.map(([key, label, value]) => el('div.tile', { dataset: { figure: key } }, el('dt', { textContent: label }), el('dd', { textContent: String(value) }))));

  const tag = scope.kind === 'all' ? 'company' : `${scope.kind}-${scope.id}`;
  const ordersByDate = new Map(orders.daily.map((d) => [d.date, d.count]));
  /** @type {Card[]} */
  const cards = [
    {
      id: 'hourly',
      title: `Units per hour, ${hourly.date}`,
      note: `Units confirmed in each hour of the day (${hourly.total} in all). Pick the day under "Hours of the day".`,
      file: `units-per-hour-${tag}-${hourly.date}`,
      columns: [{ label: 'Hour' }, { label: 'Units confirmed', num: true }],
      rows: hourly.hourly.map((h) => [`${pad(h.hour)}:00`, h.count]),
      chart: (rows) => bars(rows, [{ label: 'Units confirmed', col: 1, color: COLORS.units }]),
    },
    {
      id: 'daily',
      title: 'Units and orders per day',
      note: `Units confirmed (${units.total}) and orders sorted (${orders.total}) each day of the range.`,
      file: `units-per-day-${tag}-${f.from}-${f.to}`,
      columns: [{ label: 'Day' }, { label: 'Units confirmed', num: true }, { label: 'Orders sorted', num: true }],
      rows: units.daily.map((d) => [d.date, d.count, ordersByDate.get(d.date) ?? 0]),
      chart: (rows) => {
        const config = bars(rows, [{ label: 'Units confirmed', col: 1, color: COLORS.units }]);
        config.data.datasets.push({ type: 'line', label: 'Orders sorted', data: rows.map((r) => r[2]), borderColor: COLORS.orders, backgroundColor: COLORS.orders, yAxisID: 'orders', pointRadius: 3 });
        config.options.scales.orders = { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, ticks: { precision: 0 }, title: { display: true, text: 'Orders' } };
        config.options.scales.y.title = { display: true, text: 'Units' };
        return config;
      },
    },
    {
      id: 'sorters',
      title: 'Per sorter',
      note: 'Units confirmed and successful scans of each sorter (the employee who scanned), most units first.',
      file: `per-sorter-${tag}-${f.from}-${f.to}`,
      columns: [{ label: 'Sorter' }, { label: 'Employee id', num: true }, { label: 'Units confirmed', num: true }, { label: 'Scans', num: true }],
      rows: sorters.map((u) => [u.name, u.userId, u.units, u.scans]),
      empty: 'No sorter scanned or confirmed in this range.',
      horizontal: true,
      chart: (rows) =>
        bars(rows, [
          { label: 'Units confirmed', col: 2, color: COLORS.units },
          { label: 'Scans', col: 3, color: COLORS.scans },
        ], { horizontal: true }),
    },
    {
      id: 'walls',
      title: 'Per wall',
      note: 'Units confirmed at each wall; the table adds its units per hour, scans and orders sorted.',
      file: `per-wall-${tag}-${f.from}-${f.to}`,
      columns: [{ label: 'Wall' }, { label: 'Units confirmed', num: true }, { label: 'Units per hour', num: true }, { label: 'Scans', num: true }, { label: 'Orders sorted', num: true }],
      rows: walls.map(({ wall, stats: s }) => [wall.name, s.confirmedUnits, s.unitsPerHour, s.scans, s.sortedOrders]),
      empty: 'No wall in this scope.',
      horizontal: true,
      chart: (rows) => bars(rows, [{ label: 'Units confirmed', col: 1, color: COLORS.units }], { horizontal: true }),
    },
    {
      id: 'refusals',
      title: 'Refused scans per wall',
      note: 'Scans the service refused (unknown barcode, no order needs the unit, no empty slot, …) beside the successful ones. Why they were refused: "Refusals by reason".',
      file: `refusals-per-wall-${tag}-${f.from}-${f.to}`,
      columns: [{ label: 'Wall' }, { label: 'Refused scans', num: true }, { label: 'Successful scans', num: true }],
      rows: walls.map(({ wall, stats: s }) => [wall.name, s.failedScans, s.scans]),
      empty: 'No wall in this scope.',
      horizontal: true,
      chart: (rows) =>
        bars(rows, [
          { label: 'Refused scans', col: 1, color: COLORS.refused },
          { label: 'Successful scans', col: 2, color: COLORS.scans },
        ], { horizontal: true }),
    },
    {
      id: 'reasons',
      title: 'Refusals by reason',
      note: `Everything the service refused in the range (${stats.refusalsByReason.reduce((n, r) => n + r.count, 0)} in all), by reason, most first: refused scans, and refused confirms, cancels, swaps, releases and sign-ons to a wall. Each refusal, with its sorter and barcode, is in the audit log.`,
      file: `refusals-by-reason-${tag}-${f.from}-${f.to}`,
      columns: [{ label: 'Reason' }, { label: 'Code' }, { label: 'Refusals', num: true }],
      rows: stats.refusalsByReason.map((r) => [reasonText(r.code), r.code, r.count]),
      empty: 'Nothing was refused in this range.',
      horizontal: true,
      chart: (rows) => bars(rows, [{ label: 'Refusals', col: 2, color: COLORS.refused }], { horizontal: true, labelMax: 34 }),
    },
  ];
  const holder = $('#charts');
  for (const card of cards) {
    /** @type {HTMLElement | null} */
    let node = holder.querySelector(`[data-chart="${card.id}"]`);
    if (!node) holder.append((node = cardNode(card)));
    fillCard(node, card);
  }
}

/**
 * A bar chart config of table rows: labels from the first column, one dataset per column named.
 * @param {Row[]} rows
 * @param {{ label: string, col: number, color: string }[]} series
 * @param {{ horizontal?: boolean, labelMax?: number }} [options]
 * @returns {ChartConfig}
 */
function bars(rows, series, { horizontal = false, labelMax = 22 } = {}) {
  const value = horizontal ? 'x' : 'y';
  const label = horizontal ? 'y' : 'x';
  return {
    type: 'bar',
    data: {
      labels: rows.map((r) => r[0]),
      datasets: series.map((s) => ({ label: s.label, data: rows.map((r) => r[s.col]), backgroundColor: s.color, borderRadius: 3, maxBarThickness: 36 })),
    },
    options: {
      indexAxis: label,
      responsive: true,
      plugins: { legend: { display: series.length > 1, position: 'bottom' } },
      scales: {
        [value]: { beginAtZero: true, ticks: { precision: 0 } },
        // Every name of a horizontal chart; along a time axis as many labels as fit, upright.
        [label]: { grid: { display: false }, ticks: horizontal ? { autoSkip: false, callback: shortLabel(labelMax) } : { autoSkip: true, maxRotation: 0 } },
      },
    },
  };
}

/**
 * A long name shortened on the axis to `max` characters (the tooltip and the table give it whole).
 * @param {number} max
 */
function shortLabel(max) {
  /**
   * Chart.js calls it with the axis as `this`.
   * @this {{ getLabelForValue(value: number | string): unknown }}
   * @param {number | string} value
   */
  return function (value) {
    const name = String(this.getLabelForValue(value));
    return name.length > max ? `${name.slice(0, max - 1)}…` : name;
  };
}

/** @param {Card} card */
function cardNode(card) {
  const toggle = el('button.secondary.view', { type: 'button', textContent: 'Table' });
  const csv = el('button.secondary.csv', { type: 'button', textContent: 'CSV' });
  const node = el(
    'article.card.chart-card',
    // Without the chart library (it failed to load) the tables still show every figure.
    { dataset: { chart: card.id, view: state.views.get(card.id) || (Chart ? 'chart' : 'table') } },
    el('header', {}, el('h2'), el('span.tools', {}, toggle, csv)),
    el('p.note'),
    // A chart of many walls or sorters scrolls inside its card; the page stays one screen wide.
    el('div.plot-frame', {}, el('div.plot', {}, el('canvas', { role: 'img' }))),
    el('p.empty', { hidden: true }),
    el('div.table-wrap', {}, el('table', {}, el('thead'), el('tbody'))),
  );
  toggle.addEventListener('click', () => {
    const view = node.dataset.view === 'chart' ? 'table' : 'chart';
    state.views.set(card.id, view);
    setView(node, view);
  });
  setView(node, node.dataset.view);
  return node;
}

/**
 * @param {HTMLElement} node
 * @param {string | undefined} view
 */
function setView(node, view) {
  node.dataset.view = view;
  const button = $('button.view', node);
  button.textContent = view === 'chart' ? 'Table' : 'Chart';
  button.title = view === 'chart' ? 'Show the figures as a table' : 'Show the chart';
}

/**
 * @param {HTMLElement} node
 * @param {Card} card
 */
function fillCard(node, card) {
  $('h2', node).textContent = card.title;
  $('p.note', node).textContent = card.note;
  const { columns, rows } = card;
  $('thead', node).replaceChildren(el('tr', {}, ...columns.map((c) => el(c.num ? 'th.num' : 'th', { scope: 'col', textContent: c.label }))));
  $('tbody', node).replaceChildren(...rows.map((r) => el('tr', {}, ...r.map((v, i) => el(columns[i].num ? 'td.num' : 'td', { textContent: String(v) })))));
  const empty = $('p.empty', node);
  empty.hidden = rows.length > 0;
  empty.textContent = card.empty || 'Nothing in this range.';
  node.classList.toggle('no-rows', rows.length === 0);
  // Horizontal bars: the chart grows with its rows, so each name stays readable.
  const config = card.chart(rows);
  const plot = $('div.plot', node);
  plot.style.height = card.horizontal ? `${Math.max(220, 70 + rows.length * 24 * config.data.datasets.length)}px` : '';
  /** @type {HTMLCanvasElement} */
  const canvas = $('canvas', node);
  canvas.setAttribute('aria-label', `${card.title}: the table view lists the same figures.`);
  state.charts.get(card.id)?.destroy();
  if (Chart) state.charts.set(card.id, new Chart(canvas, config));
  const button = $('button.csv', node);
  button.onclick = () => download(`insights-${card.file}.csv`, columns, rows);
}

// ---- CSV

/**
 * A CSV field: quoted when it must be; text a spreadsheet would run as a formula starts with '.
 * @param {string | number} v
 */
function field(v) {
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * @param {string} name
 * @param {Column[]} columns
 * @param {Row[]} rows
 */
function download(name, columns, rows) {
  const text = [columns.map((c) => field(c.label)), ...rows.map((r) => r.map(field))].map((r) => r.join(',')).join('\r\n') + '\r\n';
  // The byte order mark tells spreadsheets the file is UTF-8 (names with accents).
  const url = URL.createObjectURL(new Blob(['\uFEFF', text], { type: 'text/csv;charset=utf-8' }));
  const a = el('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// ---- Wiring

const report = (/** @type {{ detail?: string, message: string }} */ err) => {
  $('#filters .form-error').textContent = err.detail || err.message;
};
function begin() {
  start().catch(report);
}

signInForm($('#sign-in form'), begin);
$('#sign-out').addEventListener('click', signOut);
$('#refused-sign-out').addEventListener('click', signOut);
$('#filters').addEventListener('submit', (e) => {
  e.preventDefault();
  load().catch(report);
});
begin();
