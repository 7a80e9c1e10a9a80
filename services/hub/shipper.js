// @ts-check
// The shipper's page, on the back of the wall (a phone, or a tablet mounted there, with a wedge scanner
// that types the code and Enter): the wall's Complete slots, oldest first, with their order, units and
// how long they have waited, kept live over the event stream. Scanning a slot's B- barcode prints its
// license plate on the wall's printer (or offers the PDF where the wall has none) and releases the
// slot. A wall that prints by itself (autoPrint) printed the plate when the order completed: the scan
// releases. Tapping a slot in the list is the same as scanning it.
import { $, api, el, eventStream, scanField, selectWall, show, signedInWalls, signInForm, token } from './common.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {Responses['GetWall']} Wall */
/** @typedef {Responses['GetPrinter']} Printer */
/** @typedef {Responses['ListWallCompleteSlots'][number]} CompleteSlot */
/** @typedef {Responses['GetPrintJob']} PrintJob */
/** A label made as a PDF: its object URL and the name to save it as. */
/** @typedef {{ url: string, name: string }} Pdf */
/** What a refusal on this page says: a Problem of api(), or one the page makes itself. */
/** @typedef {{ status?: number, code?: string, title?: string, detail?: string, message?: string }} Refusal */

const WALL_KEY = 'sortingWall.shipperWall';
/** A slot waiting longer than this is shown in amber: someone should take it. */
const OLD_SECONDS = 15 * 60;
/**
 * @type {{
 *   wallId: number | null, wall: Wall | null, printer: Printer | null, slots: CompleteSlot[], fetchedAt: number,
 *   busy: boolean, reload: number | undefined, watch: number | undefined, pdfUrl: string | null, run: number,
 * }}
 */
const state = {
  // The wall shown: a read of another wall (the page switched meanwhile) is dropped.
  wallId: null,
  wall: null,
  printer: null,
  slots: [],
  fetchedAt: 0,
  busy: false,
  reload: undefined,
  watch: undefined,
  pdfUrl: null,
  /** Counts openWall calls: only the latest connects the stream. */
  run: 0,
};

async function start() {
  const walls = await signedInWalls(signOut);
  if (!walls) return;
  if (walls.length === 0) return show('no-walls');
  // A tablet mounted on a wall keeps its wall: the address (?wall=) first, then what it showed last.
  const select = selectWall(walls, (w) => w.name, Number(localStorage.getItem(WALL_KEY)));
  select.hidden = walls.length < 2;
  await openWall(Number(select.value));
}

/**
 * Shows wall `id`; a newer call (another wall chosen, a sign-out) makes this one stale: it stops after its read.
 * @param {number} id
 */
async function openWall(id) {
  const run = ++state.run;
  closeStream();
  state.wallId = id;
  state.wall = null;
  state.slots = [];
  localStorage.setItem(WALL_KEY, String(id));
  history.replaceState(null, '', `?wall=${id}`);
  clearMessages();
  show('shipping');
  try {
    await refresh(id);
  } catch (err) {
    if (run === state.run) throw err; // a stale read's failure is no longer the page's
  }
  if (run !== state.run) return;
  connect();
  focusScan();
}

/** Reads the wall (its printer), the printer's health and the Complete slots again. */
async function refresh(id = state.wallId) {
  const [wall, slots] = await Promise.all([
    /** @type {Promise<Wall>} */ (api('GET', `/api/v1/walls/${id}`)),
    /** @type {Promise<Responses['ListWallCompleteSlots']>} */ (api('GET', `/api/v1/walls/${id}/complete-slots`)),
  ]);
  const printer = wall.printerId ? await /** @type {Promise<Printer>} */ (api('GET', `/api/v1/printers/${wall.printerId}`)).catch(() => null) : null;
  if (id !== state.wallId) return;
  state.wall = wall;
  state.slots = slots;
  state.fetchedAt = Date.now();
  state.printer = printer;
  $('.bar h1').textContent = `Shipper · ${wall.name}`;
  renderPrinter();
  renderSlots();
}

function scheduleRefresh() {
  clearTimeout(state.reload);
  state.reload = setTimeout(() => refresh().catch(() => undefined), 150);
}

function renderPrinter() {
  const node = $('#printer');
  node.hidden = false;
  const p = state.printer;
  if (!p) {
    node.dataset.state = 'none';
    node.textContent = 'No printer: labels as PDF';
    node.title = 'A Manager names the wall\'s label printer (PATCH /walls/{id}, printerId).';
  } else {
    node.dataset.state = p.lastError ? 'failing' : 'ok';
    node.textContent = p.lastError ? `⚠ Printer ${p.name}: not answering` : `Printer ${p.name}${shown().autoPrint ? ' · prints by itself' : ''}`;
    node.title = p.lastError ? p.lastError : `Last label ${p.lastPrintedAt ? new Date(p.lastPrintedAt).toLocaleTimeString() : 'none yet'}`;
  }
  $('#how').textContent = !p ? 'scan a slot: you get its label as a PDF, and the slot is free again' : shown().autoPrint ? 'labels print when an order completes; scan a slot to release it' : 'scan a slot: its label prints, and the slot is free again';
}

/** The wall shown: the printer, the slots and a scan are read only once there is one. */
const shown = () => /** @type {Wall} */ (state.wall);

/** @param {number} seconds */
function waitingText(seconds) {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

function renderSlots() {
  const passed = Math.floor((Date.now() - state.fetchedAt) / 1000);
  $('#count').textContent = String(state.slots.length);
  $('#empty').hidden = state.slots.length > 0;
  $('#slots').replaceChildren(
    ...state.slots.map((s) => {
      const waited = s.waitingSeconds + passed;
      return el(
        'li',
        { dataset: { crc: s.crc, old: String(waited >= OLD_SECONDS) } },
        el(
          'button',
          { type: 'button', onclick: () => ship(s.shipperBarcode), title: `Same as scanning ${s.shipperBarcode}` },
          el('span.slot-no', {}, String(s.position), el('small', { textContent: 'slot' })),
          el('span.order', {}, `Order ${s.orderId} · ${s.units} ${s.units === 1 ? 'unit' : 'units'}`, el('small', { textContent: s.shipperBarcode })),
          el('span.wait', { textContent: waitingText(waited) }),
        ),
      );
    }),
  );
}

/**
 * A scan (or a tap): checks the code, prints the plate (or makes the PDF), releases the slot.
 * @param {string} code
 */
async function ship(code) {
  if (state.busy || !state.wall) return;
  clearMessages();
  const upper = code.toUpperCase();
  if (/^A-[0-9A-F]{8}$/.test(upper)) {
    return refuse({ title: 'That is the front barcode', detail: `${code} is the sorters' barcode on the front of the slot. Scan the B- barcode on the back of the slot.` });
  }
  const crc = /^(?:B-)?([0-9A-F]{8})$/.exec(upper)?.[1];
  if (!crc) return refuse({ title: 'Not a slot barcode', detail: `${code} is not a slot's barcode. Scan the B- barcode on the back of a complete slot (a product goes to the sorters at the front).` });
  state.busy = true;
  const row = document.querySelector(`#slots li[data-crc="${crc}"]`);
  row?.classList.add('busy');
  try {
    let slot = state.slots.find((s) => s.crc === crc);
    if (!slot) {
      await refresh();
      slot = state.slots.find((s) => s.crc === crc);
    }
    if (!slot) return await notComplete(crc);
    await printAndRelease(slot);
  } catch (err) {
    if (err.status === 401) return signOut();
    refuse(err);
  } finally {
    state.busy = false;
    row?.classList.remove('busy');
    scheduleRefresh();
    focusScan();
  }
}

/**
 * The slot is not among this wall's Complete slots: say why in the shipper's words, change nothing.
 * @param {string} crc
 */
async function notComplete(crc) {
  const wall = shown();
  const mine = wall.slots.find((s) => s.crc === crc);
  if (!mine) {
    return refuse({ title: 'Not a slot of this wall', detail: `B-${crc} is not a slot of wall '${wall.name}'. Check the wall you are at (top of the page), or scan a slot of this wall.` });
  }
  if (mine.status === 'Empty') {
    return refuse({ title: `Slot ${mine.position} is empty`, detail: `Slot ${mine.position} holds no order, so there is nothing to ship. It may have been released already.` });
  }
  return refuse({
    title: `Slot ${mine.position} is not complete yet`,
    detail: `Order ${mine.orderId} in slot ${mine.position} still waits for units from the sorters. Leave it in the slot; it shows in the list here once it is complete.`,
  });
}

/** @param {CompleteSlot} slot */
async function printAndRelease(slot) {
  const printer = state.printer;
  /** @type {Responses['PrintLicensePlateForCrc'] | null} */
  let job = null;
  /** @type {Pdf | null} */
  let pdf = null;
  if (printer && !shown().autoPrint) {
    try {
      job = await api('POST', `/api/v1/license-plates/${slot.shipperBarcode}/print`);
    } catch (err) {
      // The wall's printer was removed meanwhile: the PDF instead.
      if (err.code !== 'no-printer') throw err;
      pdf = await labelPdf(slot);
    }
  } else if (!printer) {
    pdf = await labelPdf(slot);
  }
  await api('POST', `/api/v1/sort-boxes/${slot.shipperBarcode}/release`);
  state.slots = state.slots.filter((s) => s.crc !== slot.crc);
  renderSlots();
  const title = `✓ Slot ${slot.position} is free · order ${slot.orderId}`;
  // A job or no PDF: the wall has a printer (printer is set).
  if (job) {
    result(title, `Label printing on '${/** @type {Printer} */ (printer).name}'…`, 'ok');
    watchJob(job, /** @type {Printer} */ (printer), title);
  } else if (pdf) {
    result(title, `This wall has no label printer: open the label and print it.`, 'ok', pdf);
  } else {
    result(title, `Its label printed on '${/** @type {Printer} */ (printer).name}' when the order completed.`, 'ok');
  }
}

/**
 * The label as a PDF (the wall has no printer): a link to open or save it.
 * @param {CompleteSlot} slot
 * @returns {Promise<Pdf>}
 */
async function labelPdf(slot) {
  const res = await fetch(`/api/v1/license-plates/${slot.shipperBarcode}/pdf`, { method: 'POST', headers: { Authorization: `Bearer ${token.get()}` } });
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    throw { status: res.status, code: body.code, title: body.title || 'The label could not be made', detail: body.detail || '' };
  }
  if (state.pdfUrl) URL.revokeObjectURL(state.pdfUrl);
  const url = URL.createObjectURL(await res.blob());
  state.pdfUrl = url;
  return { url, name: `${res.headers.get('X-License-Plate') || `order-${slot.orderId}`}.pdf` };
}

/**
 * Follows a print job until the printer took it or it was given up, and says so.
 * @param {PrintJob} job
 * @param {Printer} printer
 * @param {string} title
 */
function watchJob(job, printer, title) {
  clearTimeout(state.watch);
  const started = Date.now();
  const look = async () => {
    /** @type {PrintJob} */
    let now;
    try {
      now = await api('GET', `/api/v1/print-jobs/${job.id}`);
    } catch {
      now = job;
    }
    if ($('#result-title').textContent !== title) return;
    if (now.status === 'Sent') return result(title, `✓ Label printed on '${printer.name}'.`, 'ok');
    if (now.status === 'Failed') return result(title, `The label did not print: ${now.lastError || 'the printer did not take it'}. Print it again from the hub, or ask a Manager.`, 'failed');
    if (now.attempts > 0 && now.lastError) {
      result(title, `The label waits for the printer '${printer.name}', which is not answering. ${now.lastError}. It prints by itself as soon as the printer is back: check that it is on, connected and has labels.`, 'waiting');
      refresh().catch(() => undefined);
    }
    if (Date.now() - started < 10 * 60_000) state.watch = setTimeout(look, now.attempts > 0 ? 2000 : 400);
  };
  state.watch = setTimeout(look, 300);
}

/**
 * @param {string} title
 * @param {string} detail
 * @param {'ok' | 'waiting' | 'failed'} kind
 * @param {Pdf | null} [pdf]
 */
function result(title, detail, kind, pdf) {
  const box = $('#result');
  box.hidden = false;
  box.dataset.state = kind;
  $('#result-title').textContent = title;
  $('#result-detail').textContent = detail;
  /** @type {HTMLAnchorElement} */
  const link = $('#result-pdf');
  link.hidden = !pdf;
  if (pdf) {
    link.href = pdf.url;
    link.download = pdf.name;
  }
}

/** @param {Refusal} err */
function refuse(err) {
  $('#refusal').hidden = false;
  $('#refusal-title').textContent = err.title || 'Refused';
  $('#refusal-detail').textContent = err.detail || err.message || '';
}

function clearMessages() {
  $('#refusal').hidden = true;
  $('#result').hidden = true;
  clearTimeout(state.watch);
}

/** The wall's events: a slot completed, released, swapped or the wall changed: the list is read again. */
const RELEVANT = new Set(['sort-box.completed', 'sort-box.released', 'sort-box-item.swapped', 'sort-box-item.confirmed', 'wall.updated']);

/** Follows the wall's events. */
const stream = eventStream({
  query: () => ({ wallId: String(state.wallId) }),
  // Whatever happened while the stream was away.
  onOpen: () => scheduleRefresh(),
  onMessage: (data) => {
    try {
      if (RELEVANT.has(JSON.parse(data).type)) scheduleRefresh();
    } catch {
      // not an event
    }
  },
});
const connect = stream.connect;
const closeStream = stream.close;

function signOut() {
  state.run++; // a wall still opening stops there
  closeStream();
  token.clear();
  start();
}

const focusScan = scanField(ship);
signInForm($('#sign-in form'), start);
$('#wall-select').addEventListener('change', (e) => openWall(Number(/** @type {HTMLSelectElement} */ (e.target).value)).catch(refuse));
$('#sign-out').addEventListener('click', signOut);
// The waiting times move on between reads.
setInterval(() => state.slots.length && renderSlots(), 15_000);
start();
