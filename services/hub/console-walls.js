// @ts-check
// The console's Walls tab (Managers): the walls with their counts, a wall's settings, its connected
// sorters (Disconnect), its slots attached by scanning serial numbers one after another (Detach), the
// light test and the slot labels as PDF.
import { api, el, Problem, token } from './common.js';
import { act, button, cell, field, form, node, refuse, say, state, value, when } from './console-ui.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {Responses['GetWall']} Wall */
/** @typedef {Wall['slots'][number]} Slot */
/** @typedef {Wall['sessions'][number]} Session */

/** Serial numbers attach one after another, in the order they were scanned. */
let attaching = Promise.resolve();

async function loadWalls() {
  state.walls = await api('GET', '/api/v1/walls');
  renderWalls();
}

export function renderWalls() {
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
export async function selectWall(id) {
  state.wall = await api('GET', `/api/v1/walls/${id}`);
  renderWall();
  renderWalls();
  node('#serial').focus();
}

async function reloadWall() {
  if (state.wall) state.wall = await api('GET', `/api/v1/walls/${state.wall.id}`);
  renderWall();
}

export function renderWall() {
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
  const w = /** @type {Wall} */ (state.wall);
  return act(async () => {
    await api('DELETE', `/api/v1/walls/${w.id}/sessions/${encodeURIComponent(/** @type {string} */ (s.token))}`);
    await Promise.all([reloadWall(), loadWalls()]);
    return `${s.userName} is disconnected from wall ${w.name}; their device goes back to the wall list.`;
  });
}

/** @param {Slot} s */
function detach(s) {
  const w = /** @type {Wall} */ (state.wall);
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

/** The tab's forms and buttons. */
export function wireWalls() {
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
    if (serial) attaching = attaching.then(() => attach(serial));
  });

  node('#print-labels').addEventListener('click', () => printLabels().catch(refuse));
}
