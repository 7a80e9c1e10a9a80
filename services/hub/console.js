// @ts-check
// The operator's console (/console, Managers and Admins): set up walls and their slots, the employees,
// the PIN and the subscription, label printers, webhooks, and file imports, through the public API
// only. Every change is confirmed in the notice line and every refusal shows the service's detail.
// Walls and printers are a Manager's; employees, the PIN, the subscription, webhooks and imports an
// Admin's (the service decides: a tab it would refuse is not offered).
import { $, api, el, Problem, show, signedInWalls, signInForm, token } from './common.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {Responses['ListWalls'][number]} Wall */
/** @typedef {Responses['GetWall']} WallDetail */
/** @typedef {WallDetail['slots'][number]} Slot */
/** @typedef {WallDetail['sessions'][number]} Session */
/** @typedef {Responses['ListEmployees'][number]} Employee */
/** @typedef {Responses['ListPrinters'][number]} Printer */
/** @typedef {Responses['ListWebhooks'][number]} Webhook */
/** The three imports answer the same report: a field the page reads must be in each. */
/** @typedef {Responses['ImportOrders' | 'ImportProducts' | 'ImportPicklists']} ImportReport */
/** An import refused for its problems: the problem+json answer (400) carries the same report. */
/** @typedef {{ code?: string, title?: string, detail?: string, report?: ImportReport }} ImportRefusal */
/** What PATCH /admin/employees/{id} changes here (only the fields given). */
/** @typedef {{ roles?: string[], isActive?: boolean, password?: string }} EmployeeChange */

/** @type {Employee['roles']} */
const ROLES = ['Sorter', 'Manager', 'Admin'];

const state = {
  /** @type {Employee['roles']} */ roles: [],
  /** @type {Wall[]} */ walls: [],
  /** @type {WallDetail | null} */ wall: null,
  /** @type {Printer[]} */ printers: [],
  /** @type {Employee[]} */ employees: [],
  /** Serial numbers attach one after another, in the order they were scanned. */
  /** @type {Promise<void>} */ attaching: Promise.resolve(),
  /** @type {{ file: File, kind: string, report: ImportReport } | null} */ checked: null,
};

// ---- Small typed lookups (the page's own markup: the elements exist)

/** @param {string} sel @returns {HTMLElement} */
const node = (sel) => /** @type {HTMLElement} */ ($(sel));
/** @param {string} sel @returns {HTMLFormElement} */
const form = (sel) => /** @type {HTMLFormElement} */ ($(sel));
/** @param {HTMLFormElement} f @param {string} name @returns {HTMLInputElement} */
const field = (f, name) => /** @type {HTMLInputElement} */ (f.elements.namedItem(name));
/** @param {HTMLFormElement} f @param {string} name */
const value = (f, name) => field(f, name).value.trim();
/** @param {string | null} iso */
const when = (iso) => (iso ? new Date(iso).toLocaleString() : '–');
/** @param {string} tag @param {string | number} text @param {string} [cls] */
const cell = (tag, text, cls) => el(cls ? `${tag}.${cls}` : tag, { textContent: String(text) });
/** @param {string} text @param {() => void} onClick @param {string} [cls] */
const button = (text, onClick, cls = 'secondary') => el(`button.${cls}`, { type: 'button', textContent: text, onclick: onClick });
const isAdmin = () => state.roles.includes('Admin');

// ---- Confirmations and refusals

/** @param {string} text @param {'ok' | 'bad'} [kind] */
function say(text, kind = 'ok') {
  const n = node('#notice');
  n.hidden = false;
  n.dataset.kind = kind;
  n.textContent = text;
}

/** A refusal as the service worded it; an expired sign-in goes back to the form. @param {unknown} err */
function refuse(err) {
  if (err instanceof Problem) {
    if (err.status === 401) return signOut();
    say(err.detail ? `${err.title}: ${err.detail}` : err.title, 'bad');
  } else {
    say(err instanceof Error ? err.message : String(err), 'bad');
  }
}

/** Runs a change: its confirmation on success, the refusal otherwise. @param {() => Promise<string>} change */
async function act(change) {
  try {
    say(await change());
  } catch (err) {
    refuse(err);
  }
}

// ---- Start, sign-in, refusal

async function start() {
  const walls = await signedInWalls(signOut);
  if (!walls) return;
  /** @type {Responses['GetAuthenticatedEmployee']} */
  const me = await api('GET', '/api/v1/employees/me');
  state.roles = me.roles;
  // Admin implies Manager (docs/api.md §2).
  if (!state.roles.includes('Manager') && !isAdmin()) return refused();
  state.walls = walls;
  show('console');
  node('#tabs').hidden = false;
  node('#to-hub').hidden = false;
  for (const tab of document.querySelectorAll('#tabs [data-admin]')) /** @type {HTMLElement} */ (tab).hidden = !isAdmin();
  await loadPrinters();
  renderWalls();
  if (walls.length) await selectWall(walls[0].id);
  const wanted = location.hash.slice(1);
  openTab(document.querySelector(`#tabs [data-tab="${wanted}"]:not([hidden])`) ? wanted : 'walls');
}

function refused() {
  node('#refused-detail').textContent =
    `You are signed in as ${state.roles.join(' and ') || 'an employee without a role'}. Setting up walls, employees and printers is for Managers and Admins: sign in with such an account, or ask an Admin for the role.`;
  show('refused');
}

function signOut() {
  token.clear();
  node('#sign-out').hidden = true;
  node('#tabs').hidden = true;
  node('#to-hub').hidden = true;
  node('#notice').hidden = true;
  state.wall = null;
  begin();
}

// ---- Tabs

/** @param {string} name */
function openTab(name) {
  for (const b of document.querySelectorAll('#tabs [data-tab]')) b.setAttribute('aria-selected', String(/** @type {HTMLElement} */ (b).dataset.tab === name));
  for (const t of document.querySelectorAll('.tab')) /** @type {HTMLElement} */ (t).hidden = t.id !== `tab-${name}`;
  history.replaceState(null, '', `#${name}`);
  const load = { walls: async () => undefined, employees: loadEmployees, printers: loadPrinters, webhooks: loadWebhooks, imports: async () => undefined }[name];
  load?.().catch(refuse);
  if (name === 'walls' && state.wall) node('#serial').focus();
}

// ---- Walls

async function loadWalls() {
  state.walls = await api('GET', '/api/v1/walls');
  renderWalls();
}

function renderWalls() {
  node('#walls').replaceChildren(
    ...state.walls.map((w) =>
      el(
        'tr',
        { className: state.wall?.id === w.id ? 'current' : '' },
        el('td', {}, el('button.link', { type: 'button', textContent: w.name, onclick: () => selectWall(w.id).catch(refuse) })),
        cell('td', w.isActive ? 'Active' : 'Inactive', w.isActive ? 'ok' : 'off'),
        cell('td', w.slotCount, 'num'),
        cell('td', `${w.connectedSorters} of ${w.maxSorters}`, 'num'),
      ),
    ),
  );
}

/** @param {number} id */
async function selectWall(id) {
  state.wall = await api('GET', `/api/v1/walls/${id}`);
  renderWall();
  renderWalls();
  node('#serial').focus();
}

async function reloadWall() {
  if (state.wall) state.wall = await api('GET', `/api/v1/walls/${state.wall.id}`);
  renderWall();
}

function renderWall() {
  const w = state.wall;
  node('#wall').hidden = !w;
  if (!w) return;
  node('#wall-title').textContent = w.name;
  const f = form('#wall-settings');
  field(f, 'name').value = w.name;
  field(f, 'maxSorters').value = String(w.maxSorters);
  field(f, 'isActive').checked = w.isActive;
  field(f, 'autoPrint').checked = w.autoPrint;
  const printer = /** @type {HTMLSelectElement} */ (f.elements.namedItem('printerId'));
  printer.replaceChildren(el('option', { value: '', textContent: 'None: the shipper prints PDFs' }), ...state.printers.map((p) => el('option', { value: String(p.id), textContent: p.name })));
  printer.value = w.printerId === null ? '' : String(w.printerId);
  /** @type {HTMLAnchorElement} */ (node('#open-hub')).href = `/hub?wall=${w.id}`;

  node('#sessions').replaceChildren(
    ...w.sessions.map((s) =>
      el(
        'tr',
        {},
        cell('td', s.userName),
        el('td', {}, el('span.swatch', { style: { background: s.colorHex } }), s.color),
        cell('td', when(s.startedAt)),
        el('td.row-actions', {}, s.token ? button('Disconnect', () => disconnect(s)) : null),
      ),
    ),
  );
  node('#no-sessions').hidden = w.sessions.length > 0;

  node('#slots').replaceChildren(
    ...w.slots.map((s) =>
      el(
        'tr',
        { dataset: { crc: s.crc } },
        cell('td', s.position, 'num'),
        cell('td', s.crc, 'mono'),
        cell('td', s.serialNumber, 'mono'),
        cell('td', s.orderId === null ? s.status : `${s.status} (order ${s.orderId})`),
        el('td.row-actions', {}, button('Detach', () => detach(s))),
      ),
    ),
  );
  node('#no-slots').hidden = w.slots.length > 0;
}

/** @param {Session} s */
function disconnect(s) {
  const w = /** @type {WallDetail} */ (state.wall);
  return act(async () => {
    await api('DELETE', `/api/v1/walls/${w.id}/sessions/${encodeURIComponent(/** @type {string} */ (s.token))}`);
    await Promise.all([reloadWall(), loadWalls()]);
    return `${s.userName} is disconnected from wall ${w.name}; their device goes back to the wall list.`;
  });
}

/** @param {Slot} s */
function detach(s) {
  const w = /** @type {WallDetail} */ (state.wall);
  return act(async () => {
    await api('DELETE', `/api/v1/walls/${w.id}/sort-boxes/${s.crc}`);
    await Promise.all([reloadWall(), loadWalls()]);
    return `Slot ${s.position} (${s.crc}) is detached from wall ${w.name}; its device can be attached anywhere.`;
  });
}

/** One scanned serial number: attached as the wall's next slot. @param {string} serial */
async function attach(serial) {
  const w = state.wall;
  if (!w) return say('Choose or create a wall first.', 'bad');
  const known = w.slots.find((s) => s.serialNumber === serial);
  await act(async () => {
    /** @type {Responses['AttachSortBoxes']} */
    const [slot] = await api('PUT', `/api/v1/walls/${w.id}/sort-boxes`, { body: { serialNumbers: [serial] } });
    await reloadWall();
    await loadWalls();
    return known
      ? `${serial} is already slot ${slot.position} (${slot.crc}) of wall ${w.name}: nothing changed.`
      : `Slot ${slot.position} attached: ${serial}, crc ${slot.crc}. Scan the next device.`;
  });
}

async function printLabels() {
  const w = state.wall;
  if (!w) return;
  const res = await fetch(`/api/v1/walls/${w.id}/slot-labels.pdf`, { headers: { Authorization: `Bearer ${token.get()}` } });
  if (!res.ok) throw new Problem(res.status, await res.json().catch(() => ({})));
  const url = URL.createObjectURL(await res.blob());
  const a = el('a', { href: url, download: `wall-${w.name}-slot-labels.pdf`, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  say(`Slot labels of wall ${w.name}: ${w.slots.length} label(s), 8 to a Letter page. Cut each along its dashed line: A- on the slot's front, B- on its back.`);
}

// ---- Employees, PIN, subscription (Admin)

async function loadEmployees() {
  state.employees = await api('GET', '/api/v1/admin/employees');
  node('#employees').replaceChildren(...state.employees.map(employeeRow));
  const select = /** @type {HTMLSelectElement} */ (form('#reset-password').elements.namedItem('id'));
  select.replaceChildren(...state.employees.map((e) => el('option', { value: String(e.id), textContent: `${e.firstName} ${e.lastName} (${e.email})` })));
  /** @type {Responses['GetSecurityPin']} */
  const pin = await api('GET', '/api/v1/admin/security/pin');
  node('#pin-state').textContent = pin.pinLength
    ? `(a PIN of ${pin.pinLength} characters, enforced by ${pin.enforcement === 'server' ? 'the service too' : 'the sorter page'})`
    : '(no PIN set)';
  /** @type {HTMLSelectElement} */ (form('#pin').elements.namedItem('enforcement')).value = pin.enforcement;
  /** @type {Responses['GetSortingSubscription']} */
  const enabled = await api('GET', '/api/v1/subscriptions/sorting');
  node('#subscription-state').textContent = enabled ? '(enabled)' : '(disabled: sorting is refused)';
  node('#subscription-toggle').textContent = enabled ? 'Disable sorting' : 'Enable sorting (free)';
  node('#subscription-toggle').dataset.enabled = String(enabled);
  await loadUsage();
}

/** @param {Employee} e */
function employeeRow(e) {
  const boxes = ROLES.map((r) => el('label.role', {}, el('input', { type: 'checkbox', value: r, checked: e.roles.includes(r) }), ` ${r}`));
  const name = `${e.firstName} ${e.lastName}`;
  return el(
    'tr',
    { dataset: { email: e.email }, className: e.isActive ? '' : 'inactive' },
    cell('td', name),
    cell('td', e.email),
    el('td', {}, ...boxes),
    cell('td', e.isActive ? 'Active' : 'Deactivated', e.isActive ? 'ok' : 'off'),
    el(
      'td.row-actions',
      {},
      button('Save roles', () => {
        const roles = boxes.map((b) => /** @type {HTMLInputElement} */ (b.firstChild)).filter((i) => i.checked).map((i) => i.value);
        return changeEmployee(e, { roles }, `${name}'s roles are now ${roles.join(', ')}.`);
      }),
      button(e.isActive ? 'Deactivate' : 'Reactivate', () =>
        changeEmployee(e, { isActive: !e.isActive }, e.isActive ? `${name} is deactivated: signed out everywhere within seconds.` : `${name} may sign in again.`),
      ),
    ),
  );
}

/** @param {Employee} e @param {EmployeeChange} body @param {string} done */
function changeEmployee(e, body, done) {
  return act(async () => {
    await api('PATCH', `/api/v1/admin/employees/${e.id}`, { body });
    await loadEmployees();
    return done;
  });
}

async function loadUsage() {
  const f = form('#subscription');
  if (!value(f, 'month')) field(f, 'month').value = new Date().toISOString().slice(0, 7);
  /** @type {Responses['GetSortingUsage']} */
  const usage = await api('GET', `/api/v1/admin/subscriptions/sorting/usage?month=${encodeURIComponent(value(f, 'month'))}`);
  node('#usage').textContent = `${usage.slotsUsed} slot${usage.slotsUsed === 1 ? '' : 's'} used in ${usage.month} (slots that took a confirmed unit: the billing figure)`;
}

// ---- Printers

async function loadPrinters() {
  state.printers = await api('GET', '/api/v1/printers');
  node('#printers').replaceChildren(
    ...state.printers.map((p) =>
      el(
        'tr',
        {},
        cell('td', p.name),
        cell('td', `${p.host}:${p.port}`, 'mono'),
        cell('td', when(p.lastPrintedAt)),
        cell('td', p.lastError ?? '–', p.lastError ? 'bad' : ''),
        el(
          'td.row-actions',
          {},
          button('Test print', () =>
            act(async () => {
              /** @type {Responses['PrintTestLabel']} */
              const job = await api('POST', `/api/v1/printers/${p.id}/test`);
              await showJobs(p);
              return `Test label for ${p.name} queued as print job ${job.id}: it shows Sent once the printer took it (Print jobs).`;
            }),
          ),
          button('Print jobs', () => showJobs(p).catch(refuse)),
          button('Remove', () =>
            act(async () => {
              await api('DELETE', `/api/v1/printers/${p.id}`);
              await loadPrinters();
              return `Printer ${p.name} is removed.`;
            }),
          ),
        ),
      ),
    ),
  );
  if (state.wall) renderWall();
}

/** @param {Printer} p */
async function showJobs(p) {
  /** @type {Responses['ListPrinterJobs']} */
  const jobs = await api('GET', `/api/v1/printers/${p.id}/jobs?count=50`);
  node('#jobs-card').hidden = false;
  node('#jobs-title').textContent = p.name;
  node('#jobs').replaceChildren(
    ...jobs.map((j) =>
      el(
        'tr',
        {},
        cell('td', j.id, 'num'),
        cell('td', j.orderId ?? 'test', 'num'),
        el('td', {}, el('span.state', { textContent: j.status, dataset: { state: j.status } })),
        cell('td', j.attempts, 'num'),
        cell('td', when(j.createdAt)),
        cell('td', when(j.sentAt)),
        cell('td', j.lastError ?? '–'),
      ),
    ),
  );
  node('#no-jobs').hidden = jobs.length > 0;
}

// ---- Webhooks (Admin)

async function loadWebhooks() {
  /** @type {Responses['ListWebhooks']} */
  const hooks = await api('GET', '/api/v1/admin/webhooks');
  node('#webhooks').replaceChildren(
    ...hooks.map((h) =>
      el(
        'tr',
        {},
        cell('td', h.url, 'mono'),
        cell('td', h.events.join(', ')),
        cell('td', when(h.createdAt)),
        el(
          'td.row-actions',
          {},
          button('Deliveries', () => showDeliveries(h).catch(refuse)),
          button('Remove', () =>
            act(async () => {
              await api('DELETE', `/api/v1/admin/webhooks/${h.id}`);
              node('#deliveries-card').hidden = true;
              await loadWebhooks();
              return `The webhook to ${h.url} is removed, with its pending retries.`;
            }),
          ),
        ),
      ),
    ),
  );
}

/** @param {Webhook} h */
async function showDeliveries(h) {
  /** @type {Responses['ListWebhookDeliveries']} */
  const rows = await api('GET', `/api/v1/admin/webhooks/${h.id}/deliveries?count=50`);
  node('#deliveries-card').hidden = false;
  node('#deliveries-title').textContent = h.url;
  node('#deliveries').replaceChildren(
    ...rows.map((d) =>
      el(
        'tr',
        {},
        cell('td', when(d.attemptedAt)),
        cell('td', d.eventType),
        cell('td', d.attempt, 'num'),
        el('td', {}, el('span.state', { textContent: d.status, dataset: { state: d.status } })),
        cell('td', d.responseStatus ?? '–', 'num'),
        cell('td', d.error ?? '–'),
      ),
    ),
  );
  node('#no-deliveries').hidden = rows.length > 0;
}

// ---- Imports (Admin)

/**
 * Sends the chosen file to an import, as CSV or as the JSON array, and answers the report whether the
 * service took the file (200) or refused it for its problems (400 with the report).
 * @param {File} file @param {string} kind @param {boolean} dryRun @returns {Promise<{ ok: boolean, report: ImportReport }>}
 */
async function sendImport(file, kind, dryRun) {
  const json = /\.json$/i.test(file.name) || file.type === 'application/json';
  let res;
  try {
    res = await fetch(`/api/v1/admin/${kind}/import${dryRun ? '?dryRun=true' : ''}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token.get()}`, 'Content-Type': json ? 'application/json' : 'text/csv' },
      body: await file.text(),
    });
  } catch {
    throw new Problem(0, { title: 'No connection', detail: 'The service cannot be reached. Check the network and try again.' });
  }
  /** @type {unknown} */
  const data = await res.json().catch(() => ({}));
  if (res.ok) return { ok: true, report: /** @type {ImportReport} */ (data) };
  const refusal = /** @type {ImportRefusal} */ (data || {});
  if (refusal.report) return { ok: false, report: refusal.report };
  throw new Problem(res.status, refusal);
}

/** @param {ImportReport} report @param {string} kind */
function renderReport(report, kind) {
  node('#import-report').hidden = false;
  const what = `${report.records} ${kind} from ${report.rowsRead} row${report.rowsRead === 1 ? '' : 's'} (${report.created} new, ${report.updated} to replace)`;
  node('#import-summary').textContent = report.problemCount
    ? `${report.problemCount} problem${report.problemCount === 1 ? '' : 's'}: nothing can be imported until the file is fixed`
    : report.imported
      ? `Imported ${what}`
      : `Ready to import ${what}`;
  const table = node('#problems');
  table.hidden = report.problems.length === 0;
  node('#problems tbody').replaceChildren(
    ...report.problems.map((p) => el('tr', {}, cell('td', p.row, 'num'), cell('td', p.column || '–', 'mono'), cell('td', p.code, 'mono'), cell('td', p.detail))),
  );
}

async function checkImport() {
  const f = form('#import');
  const file = field(f, 'file').files?.[0];
  const kind = value(f, 'kind');
  const run = /** @type {HTMLButtonElement} */ (node('#import-run'));
  run.disabled = true;
  state.checked = null;
  if (!file) return;
  const { report } = await sendImport(file, kind, true);
  renderReport(report, kind);
  if (report.problemCount === 0) {
    state.checked = { file, kind, report };
    run.disabled = false;
    say(`${file.name} has no problem: ${report.records} ${kind} ready to import.`);
  } else {
    say(`${file.name} has ${report.problemCount} problem${report.problemCount === 1 ? '' : 's'} (listed below): fix the file and choose it again.`, 'bad');
  }
}

async function runImport() {
  const checked = state.checked;
  if (!checked) return;
  /** @type {HTMLButtonElement} */ (node('#import-run')).disabled = true;
  const { ok, report } = await sendImport(checked.file, checked.kind, false);
  renderReport(report, checked.kind);
  state.checked = null;
  if (ok) say(`Imported ${checked.file.name}: ${report.records} ${checked.kind} (${report.created} new, ${report.updated} replaced).`);
  else say(`${checked.file.name} was refused (${report.problemCount} problem${report.problemCount === 1 ? '' : 's'}, listed below): nothing was imported.`, 'bad');
}

// ---- Wiring

function begin() {
  start().catch(refuse);
}

signInForm(form('#sign-in form'), begin);
node('#sign-out').addEventListener('click', signOut);
node('#refused-sign-out').addEventListener('click', signOut);
node('#tabs').addEventListener('click', (e) => {
  const tab = /** @type {HTMLElement} */ (e.target).closest('[data-tab]');
  if (tab instanceof HTMLElement && tab.dataset.tab) openTab(tab.dataset.tab);
});

form('#new-wall').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = form('#new-wall');
  act(async () => {
    /** @type {Responses['CreateWall']} */
    const wall = await api('POST', '/api/v1/walls', { body: { name: value(f, 'name') } });
    f.reset();
    await loadWalls();
    await selectWall(wall.id);
    return `Wall ${wall.name} is created: scan its devices' serial numbers, left to right, to attach its slots.`;
  });
});

form('#wall-settings').addEventListener('submit', (e) => {
  e.preventDefault();
  const w = state.wall;
  if (!w) return;
  const f = form('#wall-settings');
  const printer = /** @type {HTMLSelectElement} */ (f.elements.namedItem('printerId')).value;
  const wanted = {
    name: value(f, 'name'),
    maxSorters: Number(value(f, 'maxSorters')),
    isActive: field(f, 'isActive').checked,
    printerId: printer ? Number(printer) : null,
    autoPrint: field(f, 'autoPrint').checked,
  };
  // Only what changed: a PATCH names its fields.
  const body = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => /** @type {Record<string, unknown>} */ (w)[k] !== v));
  if (!Object.keys(body).length) return say(`Nothing to save: wall ${w.name} is as shown.`);
  act(async () => {
    /** @type {Responses['UpdateWall']} */
    const saved = await api('PATCH', `/api/v1/walls/${w.id}`, { body });
    await Promise.all([reloadWall(), loadWalls()]);
    return `Wall ${saved.name} is saved: ${saved.isActive ? 'active' : 'inactive'}, up to ${saved.maxSorters} sorter${saved.maxSorters === 1 ? '' : 's'}.`;
  });
});

node('#light-test').addEventListener('click', () => {
  const w = state.wall;
  if (!w) return;
  act(async () => {
    await api('POST', `/api/v1/walls/${w.id}/lights/test`, { body: { seconds: 10 } });
    return `Light test on wall ${w.name} for 10 seconds: every slot lights in turn; a dark one has no working device.`;
  });
});

// The hand scanner types the serial number and Enter: the field keeps the focus and each Enter attaches
// the next slot, in scan order even when the scanner is faster than the service.
form('#attach').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = node('#serial');
  const serial = /** @type {HTMLInputElement} */ (input).value.trim();
  /** @type {HTMLInputElement} */ (input).value = '';
  input.focus();
  if (serial) state.attaching = state.attaching.then(() => attach(serial));
});
node('#print-labels').addEventListener('click', () => printLabels().catch(refuse));

form('#new-employee').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = form('#new-employee');
  const roles = [...f.querySelectorAll('input[name=roles]:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value);
  const body = { firstName: value(f, 'firstName'), lastName: value(f, 'lastName'), email: value(f, 'email'), password: field(f, 'password').value, roles };
  act(async () => {
    /** @type {Responses['CreateEmployee']} */
    const added = await api('POST', '/api/v1/admin/employees', { body });
    f.reset();
    await loadEmployees();
    return `${added.firstName} ${added.lastName} is added (${added.roles.join(', ')}): they sign in as ${added.email}.`;
  });
});

form('#reset-password').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = form('#reset-password');
  const id = Number(/** @type {HTMLSelectElement} */ (f.elements.namedItem('id')).value);
  const who = state.employees.find((x) => x.id === id);
  act(async () => {
    await api('PATCH', `/api/v1/admin/employees/${id}`, { body: { password: field(f, 'password').value } });
    f.reset();
    return `${who ? `${who.firstName} ${who.lastName}'s` : 'The'} password is changed: their devices are signed out and they sign in with the new one.`;
  });
});

form('#pin').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = form('#pin');
  const pin = field(f, 'pin').value || null;
  const enforcement = /** @type {HTMLSelectElement} */ (f.elements.namedItem('enforcement')).value;
  act(async () => {
    /** @type {Responses['SetSecurityPin']} */
    const res = await api('PUT', '/api/v1/admin/security/pin', { body: { pin, enforcement } });
    f.reset();
    await loadEmployees();
    return res.pinLength
      ? `The PIN is set (${res.pinLength} characters), enforced by ${res.enforcement === 'server' ? 'the service too' : 'the sorter page'}.`
      : 'The PIN is removed: cancels no longer ask for one.';
  });
});

node('#subscription-toggle').addEventListener('click', () => {
  const enabled = node('#subscription-toggle').dataset.enabled !== 'true';
  act(async () => {
    await api('PUT', '/api/v1/admin/subscriptions/sorting', { body: { enabled } });
    await loadEmployees();
    return enabled ? 'Sorting is enabled.' : 'Sorting is disabled: connects, scans and releases are refused until it is enabled again.';
  });
});
field(form('#subscription'), 'month').addEventListener('change', () => loadUsage().catch(refuse));

form('#new-printer').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = form('#new-printer');
  const body = { name: value(f, 'name'), host: value(f, 'host'), port: Number(value(f, 'port') || 9100) };
  act(async () => {
    /** @type {Responses['CreatePrinter']} */
    const p = await api('POST', '/api/v1/printers', { body });
    f.reset();
    await loadPrinters();
    return `Printer ${p.name} (${p.host}:${p.port}) is registered: name it as a wall's printer on the Walls tab.`;
  });
});

form('#new-webhook').addEventListener('submit', (e) => {
  e.preventDefault();
  const f = form('#new-webhook');
  const events = value(f, 'events').split(',').map((s) => s.trim()).filter(Boolean);
  act(async () => {
    /** @type {Responses['CreateWebhook']} */
    const h = await api('POST', '/api/v1/admin/webhooks', { body: { url: value(f, 'url'), events } });
    f.reset();
    await loadWebhooks();
    return `Webhook to ${h.url} added. Its signing secret, for the receiver: ${h.secret}`;
  });
});

field(form('#import'), 'file').addEventListener('change', () => checkImport().catch(refuse));
/** @type {HTMLSelectElement} */ (form('#import').elements.namedItem('kind')).addEventListener('change', () => checkImport().catch(refuse));
node('#import-check').addEventListener('click', () => checkImport().catch(refuse));
form('#import').addEventListener('submit', (e) => {
  e.preventDefault();
  runImport().catch(refuse);
});

begin();
