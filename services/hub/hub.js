// @ts-check
// The hub: a wall display readable from across the room. The wall's slots as its display settings
// lay them out, lit in the sorter's color while a scan waits for confirmation (two sorters: both),
// Sorting and Complete in fills no sorter color looks like, wrong slots flashed, the sorters by name,
// the light controllers' state, and a feed. The bar counts the units left in the wall's orders and how
// long the oldest Complete slot has waited for the shipper (GET /walls/{id}/progress). Restored on
// every load: the lit slots from GET /walls/{id} (pendingItems), the feed from the wall's last events
// (GET /events/recent); then kept live over the WebSocket event stream, which goes on from the last of them.
import { $, api, claims, el, eventStream, selectWall, show, signedInWalls, signInForm, textOn, token } from './common.js';
import { isWrongSlotRefusal } from './events.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {import('./types').EventData} EventData */
/** @typedef {import('./types').WallEvent} WallEvent */
/** @typedef {Responses['GetWall']} Wall */
/** @typedef {Wall['slots'][number]} Slot */
/** @typedef {Responses['GetWallLights']} Lights */
/** @typedef {Responses['GetWallProgress']} Progress */
/** A sorter of the wall: a connected session of the wall read, or of a `session.started` event. */
/** @typedef {EventData['session.started']['session']} Sorter */
/** A lit slot's scan: the wall read's pending items, the `sort-box-item.created` events' items. */
/** @typedef {ReturnType<typeof pendingOf>} Pending */
/** Where a slot position goes on the screen (GET /list-sortbox-displays, or a plain grid). */
/** @typedef {Pick<Responses['ListSortBoxDisplays'][number], 'index' | 'x' | 'y'>} Cell */
/**
 * What the feed and the sorters' names read of any type's data: the item's or the session's sorter,
 * the refusal's (each field is absent from the types that do not carry it).
 * @typedef {Partial<EventData['sort-box-item.created'] & EventData['session.started'] & EventData['command.refused']>} AnyData
 */

const FEED_MAX = 60;
/** The feed shown on open: the wall's last events. */
const FEED_ON_OPEN = 40;
const FLASH_MS = 2500;
/** A Complete slot waiting this long for the shipper turns the bar's figure amber; twice as long, red. */
const LATE_MS = 10 * 60_000;
/** After a change, the bar's figures are read again (at most this often): new orders bring their units. */
const PROGRESS_MS = 1500;
/**
 * @type {{
 *   wall: Wall | null, slots: Map<string, Slot>, pending: Map<number, Pending>, sorters: Map<number, Sorter>,
 *   names: Map<number, string>, lights: Lights | null, lastEventId: string | null, modeTimer: number | undefined,
 *   progress: Progress | null, progressTimer: number | null, tick: number | undefined, run: number,
 * }}
 */
const state = {
  wall: null,
  slots: new Map(),
  pending: new Map(),
  sorters: new Map(),
  names: new Map(),
  lights: null,
  lastEventId: null,
  modeTimer: undefined,
  /** GET /walls/{id}/progress, kept up by the events between reads. */
  progress: null,
  progressTimer: null,
  tick: undefined,
  /** Counts openWall calls: only the latest may change the page (openWall). */
  run: 0,
};

async function start() {
  const walls = await signedInWalls(signOut);
  if (!walls) return;
  const roles = claims().roles || [];
  const manager = roles.includes('Manager') || roles.includes('Admin');
  $('#light-test').hidden = !manager;
  $('#show-address').hidden = !manager;
  // Only the operators named in QUEUE_DASHBOARD_ADMINS: the service says who.
  /** @type {Promise<Responses['GetQueueDashboardAccess']>} */ (api('GET', '/admin/queues/session')).then((r) => ($('#queues').hidden = !r.allowed), () => ($('#queues').hidden = true));
  if (walls.length === 0) return show('no-walls');
  const select = selectWall(walls, (w) => `${w.name} (${w.slotCount} slots)`);
  select.hidden = false;
  await openWall(Number(select.value));
}

/**
 * Shows wall `id`. Each call is a run: a newer one (another wall chosen, the wall read again after
 * `wall.updated`, a sign-out) makes this one stale, and a stale run stops at its next await, so the
 * page always ends on the wall asked for last, with that wall's stream only.
 * @param {number} id
 */
async function openWall(id) {
  const run = ++state.run;
  try {
    await loadWall(id, () => run !== state.run);
  } catch (err) {
    if (run === state.run) throw err; // a stale run's failure is no longer the page's
  }
}

/**
 * @param {number} id
 * @param {() => boolean} stale
 */
async function loadWall(id, stale) {
  closeStream();
  // The feed first, the wall after: what happens between the two reads comes again from the stream
  // (it goes on after the feed's last event), and applying it to the newer wall changes nothing.
  // The recent events are the stream's (GET /events/recent answers them as it sends them).
  const recent = await /** @type {Promise<WallEvent[]>} */ (api('GET', `/api/v1/events/recent?${new URLSearchParams({ wallId: String(id), limit: String(FEED_ON_OPEN) })}`)).catch(() => []);
  if (stale()) return;
  const [wall, lights, progress] = await Promise.all([
    /** @type {Promise<Wall>} */ (api('GET', `/api/v1/walls/${id}`)),
    /** @type {Promise<Lights>} */ (api('GET', `/api/v1/walls/${id}/lights`)).catch(() => null),
    /** @type {Promise<Progress>} */ (api('GET', `/api/v1/walls/${id}/progress`)).catch(() => null),
  ]);
  if (stale()) return;
  // Names of the sorters connected or waiting, then of those gone since (the events name them by id).
  for (const s of wall.sessions) state.names.set(s.userId, s.userName);
  for (const p of wall.pendingItems) state.names.set(p.userId, p.userName);
  await Promise.all([...new Set(recent.map((e) => anyData(e)?.item?.userId ?? anyData(e)?.session?.userId ?? anyData(e)?.userId).filter(isId))].map(learnName));
  if (stale()) return;
  const cells = await cellsOf(wall);
  if (stale()) return;
  // Every read done: the page turns to this wall at once, with nothing awaited in between.
  history.replaceState(null, '', `?wall=${id}`);
  Object.assign(state, { wall, lights, progress, lastEventId: recent.at(-1)?.id ?? null, slots: new Map(), pending: new Map(), sorters: new Map() });
  for (const s of wall.slots) state.slots.set(s.crc, { ...s });
  for (const s of wall.sessions) state.sorters.set(s.userId, s);
  // The slots lit before this page opened (or before a reload) light again at once.
  for (const p of wall.pendingItems) state.pending.set(p.id, pendingOf(p));
  $('#feed').replaceChildren();
  for (const e of recent) addToFeed(e);
  layout(cells);
  renderSorters();
  renderDevices();
  renderProgress();
  clearInterval(state.tick);
  state.tick = setInterval(tickWaits, 15_000);
  show('wall');
  connect();
}

/** The wall shown: the stream, the bar's reads and the light buttons work only once there is one. */
const shown = () => /** @type {Wall} */ (state.wall);

/** @type {(id: number | null | undefined) => id is number} */
const isId = (id) => Boolean(id);

/** @param {WallEvent} e */
const anyData = (e) => /** @type {AnyData | undefined} */ (e.data);

/** Reads the bar's figures again, once the changes of the moment have settled. */
function refreshProgress() {
  if (state.progressTimer) return;
  const id = shown().id;
  state.progressTimer = setTimeout(async () => {
    try {
      /** @type {Progress} */
      const p = await api('GET', `/api/v1/walls/${id}/progress`);
      if (state.wall?.id === id) state.progress = p;
    } catch {
      // the figures stay as the events left them
    }
    state.progressTimer = null;
    renderProgress();
  }, PROGRESS_MS);
}

const minutes = (/** @type {number} */ ms) => {
  const m = Math.floor(ms / 60_000);
  return m < 1 ? '<1 min' : m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
};

/** The bar: units left in the wall's orders; the oldest Complete slot and how long it has waited. */
function renderProgress() {
  const p = state.progress;
  $('#left').hidden = !p;
  $('#waiting').hidden = !p;
  if (!p) return;
  $('#left').textContent = `${p.unitsLeft} ${p.unitsLeft === 1 ? 'unit' : 'units'} left to sort`;
  const oldest = [...p.completeSlots].sort((a, b) => a.since.localeCompare(b.since))[0];
  const waited = oldest ? Date.now() - Date.parse(oldest.since) : 0;
  const w = $('#waiting');
  w.dataset.state = !oldest ? 'none' : waited >= 2 * LATE_MS ? 'late' : waited >= LATE_MS ? 'slow' : 'ok';
  w.textContent = oldest
    ? `${p.completeSlots.length} complete · oldest slot ${state.slots.get(oldest.crc)?.position ?? oldest.position}, ${minutes(waited)}`
    : 'No slot waiting for the shipper';
  for (const c of p.completeSlots) paintSlot(c.crc);
}

function tickWaits() {
  if (state.wall) renderProgress();
}

/**
 * Keeps the bar right between reads: what an event says for sure now; the rest comes with the next read.
 * @param {WallEvent} event
 */
function trackProgress(event) {
  const p = state.progress;
  const { type, data: d } = event;
  if (!p) return;
  switch (type) {
    case 'sort-box-item.confirmed':
      p.unitsLeft = Math.max(0, p.unitsLeft - (d.item.confirmedUnits || 0));
      break;
    case 'sort-box.completed':
      p.completeSlots = [...p.completeSlots.filter((c) => c.crc !== d.sortBox.crc), { crc: d.sortBox.crc, position: d.sortBox.position, orderId: d.orderId, since: event.occurredAt }];
      break;
    case 'sort-box.released':
      p.completeSlots = p.completeSlots.filter((c) => c.crc !== d.sortBox.crc);
      break;
    default:
      if (!['sort-box-item.created', 'sort-box-item.cancelled', 'sort-box-item.swapped', 'wall.updated'].includes(event.type)) return;
  }
  renderProgress();
  refreshProgress();
}

/** @param {Wall['pendingItems'][number] | EventData['sort-box-item.created']['item']} item */
const pendingOf = (item) => ({ crc: item.crc, color: item.color, colorHex: item.colorHex, sku: item.sku, userId: item.userId, units: item.units, createdAt: item.createdAt, id: item.id });

/**
 * The cell of each slot position, as the wall's display settings lay them out (one segment after another).
 * @param {Wall} wall
 * @returns {Promise<Cell[]>}
 */
async function cellsOf(wall) {
  // Positions may have gaps (a detached slot keeps its number free): lay out up to the highest one.
  const last = Math.max(0, ...wall.slots.map((s) => s.position));
  const perRow = Math.max(1, Math.ceil(Math.sqrt(last * 1.6)));
  if (!last || !wall.segmentRows || !wall.segmentColumns) return Array.from({ length: last }, (_, i) => ({ index: i + 1, x: i % perRow, y: Math.floor(i / perRow) }));
  const q = new URLSearchParams({ sortBoxes: String(last), segmentRows: String(wall.segmentRows), segmentColumns: String(wall.segmentColumns), flowDirection: wall.flowDirection });
  return api('GET', `/api/v1/list-sortbox-displays?${q}`);
}

/**
 * Places each slot at its cell (cellsOf).
 * @param {Cell[]} cells
 */
function layout(cells) {
  const wall = shown();
  const slots = [...state.slots.values()];
  const grid = $('#grid');
  const byIndex = new Map(cells.map((c) => [c.index, c]));
  grid.style.setProperty('--cols', String(Math.max(1, ...cells.map((c) => c.x + 1))));
  grid.style.setProperty('--rows', String(Math.max(1, ...cells.map((c) => c.y + 1))));
  grid.replaceChildren(
    ...slots.map((s) => {
      const c = byIndex.get(s.position) || { x: 0, y: 0 };
      const node = el(
        'div.slot',
        { dataset: { crc: s.crc, position: s.position } },
        el('b.num', { textContent: s.position }),
        el('span.mark'),
        el('span.who'),
        el('small.crc', { textContent: s.crc }),
        el('span.no-light-badge', { textContent: '⚠ no light', hidden: true }),
      );
      node.style.gridColumn = String(c.x + 1);
      node.style.gridRow = String(c.y + 1);
      // A gap between segments, so the picture matches the physical wall.
      if (wall.segmentColumns && c.x > 0 && c.x % wall.segmentColumns === 0) node.classList.add('seg-start');
      return node;
    }),
  );
  for (const crc of state.slots.keys()) paintSlot(crc);
}

const nameOf = (/** @type {number | null | undefined} */ userId) => (userId != null && state.names.get(userId)) || `Employee ${userId}`;

/** @param {string} crc */
function paintSlot(crc) {
  const slot = state.slots.get(crc);
  /** @type {HTMLElement | null} */
  const node = document.querySelector(`.slot[data-crc="${crc}"]`);
  if (!slot || !node) return;
  const lit = [...state.pending.values()].filter((p) => p.crc === crc).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
  const colors = [...new Map(lit.map((p) => [p.color, p.colorHex])).values()];
  node.dataset.status = slot.status;
  node.classList.toggle('lit', lit.length > 0);
  node.classList.toggle('split', colors.length > 1);
  if (colors.length === 1) node.style.background = colors[0];
  else if (colors.length > 1) node.style.background = `linear-gradient(135deg, ${colors.map((c, i) => `${c} ${(i * 100) / colors.length}% ${((i + 1) * 100) / colors.length}%`).join(', ')})`;
  else node.style.background = '';
  node.style.color = colors.length ? textOn(colors[0]) : '';
  $('.mark', node).textContent = !lit.length && slot.status === 'Complete' ? '✓' : '';
  const units = lit.reduce((n, p) => n + p.units, 0);
  const since = slot.status === 'Complete' ? state.progress?.completeSlots.find((c) => c.crc === crc)?.since : null;
  $('.who', node).textContent = lit.length
    ? `${[...new Set(lit.map((p) => nameOf(p.userId)))].join(' + ')} · ${units} ${units === 1 ? 'unit' : 'units'}`
    : slot.status === 'Complete'
      ? since ? `Complete · ${minutes(Date.now() - Date.parse(since))}` : 'Complete'
      : slot.orderId
        ? `order ${slot.orderId}`
        : '';
  const dark = unlitSlots().has(slot.serialNumber);
  node.classList.toggle('no-light', dark);
  $('.no-light-badge', node).hidden = !dark;
}

/** Serial numbers of slots whose every controller is offline (no light shows them). */
function unlitSlots() {
  /** @type {Set<string>} */
  const out = new Set();
  const controllers = state.lights?.controllers || [];
  const online = new Set(controllers.filter((c) => c.online).flatMap((c) => c.slots.map((s) => s.serialNumber)));
  for (const c of controllers) if (!c.online) for (const s of c.slots) if (!online.has(s.serialNumber)) out.add(s.serialNumber);
  return out;
}

function renderSorters() {
  const list = [...state.sorters.values()];
  $('#sorters').replaceChildren(
    ...(list.length
      ? list.map((s) =>
          el('li', { style: { borderColor: s.colorHex } }, el('span.swatch', { style: { background: s.colorHex } }), el('b', { textContent: nameOf(s.userId) }), el('small', { textContent: s.color })),
        )
      : [el('li.muted', { textContent: 'No sorter connected' })]),
  );
}

function renderDevices() {
  const pill = $('#devices');
  const lights = state.lights;
  pill.hidden = !lights;
  if (!lights) return;
  const total = lights.controllers.length;
  const offline = lights.controllers.filter((c) => !c.online);
  pill.dataset.state = total === 0 ? 'none' : offline.length ? 'offline' : 'online';
  pill.textContent = total === 0 ? 'No light controllers' : offline.length ? `⚠ Lights: ${offline.length} of ${total} offline` : `Lights: ${total} online`;
  pill.title = offline.length ? `Offline: ${offline.map((c) => c.id).join(', ')}` : 'Slot light controllers of this wall';
  renderMode();
  for (const crc of state.slots.keys()) paintSlot(crc);
}

function renderMode() {
  clearTimeout(state.modeTimer);
  const l = state.lights;
  const until = l?.modeUntil ? Date.parse(l.modeUntil) : 0;
  const on = l && l.mode !== 'normal' && until > Date.now();
  $('#mode').hidden = !on;
  document.body.dataset.mode = on ? l.mode : 'normal';
  if (!on) return;
  $('#mode-text').textContent = `${l.mode === 'test' ? 'Light test' : 'Showing slot addresses on the lights'} until ${new Date(until).toLocaleTimeString()}`;
  state.modeTimer = setTimeout(renderMode, until - Date.now() + 50);
}

/** @param {Slot | undefined} box */
function setSlot(box) {
  if (!box || !state.slots.has(box.crc)) return;
  Object.assign(/** @type {Slot} */ (state.slots.get(box.crc)), box);
  paintSlot(box.crc);
}

/**
 * Flashes a slot for a moment: `wrong` black-and-white stripes with a ✕ (no sorter color), `right` its frame (the slot stays lit).
 * @param {string | null} crc
 * @param {'wrong' | 'right'} kind
 */
function flash(crc, kind) {
  const node = crc && /** @type {HTMLElement | null} */ (document.querySelector(`.slot[data-crc="${crc}"]`));
  if (!node) return;
  node.classList.remove(`flash-${kind}`);
  void node.offsetWidth; // restart the animation
  node.classList.add(`flash-${kind}`);
  setTimeout(() => node.classList.remove(`flash-${kind}`), FLASH_MS);
}

const slotBarcode = (/** @type {string | null | undefined} */ code) => /^(?:[AB]-)?([0-9A-F]{8})$/i.exec((code || '').trim())?.[1]?.toUpperCase() || null;

/**
 * A session's sorter by name: the events name an employee by id, so the hub asks once.
 * @param {number} userId
 */
async function learnName(userId) {
  if (state.names.has(userId)) return;
  try {
    /** @type {Responses['GetEmployee']} */
    const e = await api('GET', `/api/v1/employees/${userId}`);
    state.names.set(userId, `${e.firstName} ${e.lastName}`);
    renderSorters();
    for (const crc of state.slots.keys()) paintSlot(crc);
  } catch {
    // an unknown name stays "Employee N"
  }
}

/**
 * Applies one wall event of stream `ws` to the picture and adds it to the feed.
 * @param {WallEvent} event
 * @param {WebSocket} ws
 */
async function apply(event, ws) {
  state.lastEventId = event.id;
  const { type, data: d } = event;
  switch (type) {
    case 'session.started':
      state.sorters.set(d.session.userId, d.session);
      await learnName(d.session.userId);
      if (!stream.isCurrent(ws)) return; // another wall (or the same one read again) meanwhile
      renderSorters();
      break;
    case 'session.ended': {
      const held = state.sorters.get(d.session.userId);
      if (held && held.startedAt === d.session.startedAt) state.sorters.delete(d.session.userId);
      renderSorters();
      break;
    }
    case 'sort-box-item.created':
      state.pending.set(d.item.id, pendingOf(d.item));
      setSlot(d.sortBox);
      paintSlot(d.item.crc);
      break;
    case 'sort-box-item.confirmed':
    case 'sort-box-item.cancelled':
      state.pending.delete(d.item.id);
      setSlot(d.sortBox);
      paintSlot(d.item.crc);
      break;
    case 'sort-box-item.swapped': {
      const p = state.pending.get(d.item.id);
      if (p) p.crc = d.to.crc;
      setSlot(d.from);
      setSlot(d.to);
      break;
    }
    case 'sort-box.completed':
      setSlot(d.sortBox);
      break;
    case 'sort-box.released':
      for (const [id, p] of state.pending) if (p.crc === d.sortBox.crc) state.pending.delete(id);
      setSlot(d.sortBox);
      break;
    case 'command.refused':
      // A wrong slot: the scanned slot flashes its ✕, the right one blinks its frame in the sorter's color.
      if (isWrongSlotRefusal(event)) {
        const wrong = slotBarcode(d.barcode);
        if (wrong && wrong !== d.crc) flash(wrong, 'wrong');
        flash(d.crc, 'right');
      }
      break;
    case 'lights.button':
      flash(d.crc, 'wrong');
      break;
    case 'lights.mode':
    case 'lights.controller': {
      const lights = await /** @type {Promise<Lights>} */ (api('GET', `/api/v1/walls/${shown().id}/lights`)).catch(() => state.lights);
      if (!stream.isCurrent(ws)) return;
      state.lights = lights;
      renderDevices();
      break;
    }
    case 'wall.updated':
      // A new layout or name: read the wall again (the stream goes on from the last event).
      openWall(shown().id).catch(() => undefined);
      break;
  }
  trackProgress(event);
  addToFeed(event);
}

/** @param {WallEvent} e */
function describe(e) {
  const { type, data: d } = e;
  const slot = (/** @type {Slot | undefined} */ b) => (b ? `slot ${b.position}` : '');
  const who = (/** @type {number | null} */ id) => nameOf(id);
  const posOf = (/** @type {string | null} */ crc) => (crc === null ? undefined : state.slots.get(crc)?.position);
  switch (type) {
    case 'sort-box-item.created': return `${who(d.item.userId)} scanned ${d.item.sku} → ${slot(d.sortBox)}`;
    case 'sort-box-item.confirmed': return `${who(d.item.userId)} put ${d.item.confirmedUnits} × ${d.item.sku} in ${slot(d.sortBox)}`;
    case 'sort-box-item.cancelled':
      return `${who(d.item.userId)}'s ${d.item.sku} cancelled${d.reason === 'short-button' ? ' (short button)' : d.reason === 'session-ended' ? ' (sorter left)' : d.reason ? ` (${d.reason})` : ''}`;
    case 'sort-box-item.swapped': return `${who(d.item.userId)} moved ${d.item.sku}: ${slot(d.from)} → ${slot(d.to)}`;
    case 'sort-box.completed': return `${slot(d.sortBox)} complete: ready for the shipper (order ${d.orderId})`;
    case 'sort-box.released': return `${slot(d.sortBox)} released${d.forced ? ' (forced)' : ''}`;
    case 'session.started': return `${who(d.session.userId)} connected (${d.session.color})`;
    case 'session.renewed': return `${who(d.session.userId)} renewed their session`;
    case 'session.ended': return `${who(d.session.userId)} left (${d.session.endReason})`;
    case 'command.refused': {
      const wrong = slotBarcode(d.barcode);
      if (d.code === 'wrong-slot' && wrong) return `Wrong slot: ${who(d.userId)} scanned slot ${posOf(wrong) ?? wrong}, the unit goes in slot ${posOf(d.crc) ?? d.crc}`;
      return `Refused (${d.code})${d.userId ? ` for ${who(d.userId)}` : ''}: ${d.detail}`;
    }
    case 'lights.button': return `Button on slot ${d.position ?? '?'} refused: ${d.detail}`;
    case 'lights.mode': return d.mode === 'normal' ? 'Lights back to normal' : d.mode === 'test' ? 'Light test started' : 'Showing slot addresses on the lights';
    case 'lights.controller': return `Light controller ${d.controller?.id} ${d.controller?.online ? 'online' : 'OFFLINE'}`;
    case 'wall.updated': return 'Wall settings changed';
    default: return type; // a type newer than this page: its name
  }
}

const BAD = new Set(['command.refused', 'lights.button']);

/** @param {WallEvent} e */
function addToFeed(e) {
  const color = anyData(e)?.item?.colorHex || anyData(e)?.session?.colorHex || (e.type === 'command.refused' && e.data.userId !== null ? state.sorters.get(e.data.userId)?.colorHex : null);
  const time = new Date(e.occurredAt).toLocaleTimeString();
  const bad = BAD.has(e.type) || (e.type === 'lights.controller' && !e.data?.controller?.online);
  const li = el('li', { dataset: { type: e.type, eventId: e.id } }, el('time', { textContent: time }), el('span.swatch', { style: { background: color || 'transparent' } }), describe(e));
  if (bad) li.classList.add('bad');
  const feed = $('#feed');
  feed.prepend(li);
  while (feed.children.length > FEED_MAX) /** @type {ChildNode} */ (feed.lastChild).remove();
}

// Events are applied one after another, in the order they came; those queued when the stream was
// replaced are dropped. A reconnect asks for what it missed (lastEventId).
/** @type {Promise<void>} */
let chain = Promise.resolve();
const stream = eventStream({
  query: () => ({ wallId: String(shown().id), ...(state.lastEventId ? { lastEventId: state.lastEventId } : {}) }),
  onMessage: (data, ws) => {
    chain = chain.then(() => (stream.isCurrent(ws) ? apply(JSON.parse(data), ws) : undefined)).catch((err) => console.error('bad event', err));
  },
});
const connect = stream.connect;
const closeStream = stream.close;

function signOut() {
  state.run++; // a wall still opening stops there
  closeStream();
  clearInterval(state.tick);
  token.clear();
  for (const id of ['#wall-select', '#live', '#queues', '#devices', '#light-test', '#show-address', '#left', '#waiting']) $(id).hidden = true;
  begin();
}

async function openQueues() {
  try {
    /** @type {Responses['OpenQueueDashboard']} */
    const { url } = await api('POST', '/admin/queues/session');
    location.href = url;
  } catch (err) {
    alert(err.detail || err.message);
  }
}

/**
 * @param {string} path
 * @param {string} [method]
 */
async function lightMode(path, method = 'POST') {
  try {
    /** @type {Lights} The light operations answer the wall's lights (StartWallLightTest, StartWallShowAddress, EndWallLightMode). */
    const lights = await api(method, `/api/v1/walls/${shown().id}/lights${path}`, method === 'POST' ? { body: {} } : {});
    state.lights = lights;
    renderDevices();
  } catch (err) {
    alert(err.detail || err.message);
  }
}

/** Every start-up and wall change ends here when it fails: no rejection goes unhandled. */
const report = (/** @type {{ detail?: string, message?: string }} */ err) => alert(err.detail || err.message);
function begin() {
  start().catch(report);
}

signInForm($('#sign-in form'), begin);
$('#queues').addEventListener('click', openQueues);
$('#sign-out').addEventListener('click', signOut);
$('#light-test').addEventListener('click', () => lightMode('/test'));
$('#show-address').addEventListener('click', () => lightMode('/show-address'));
$('#mode-end').addEventListener('click', () => lightMode('/mode', 'DELETE'));
$('#wall-select').addEventListener('change', (e) => openWall(Number(/** @type {HTMLSelectElement} */ (e.target).value)).catch(report));
begin();
