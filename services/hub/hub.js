// The hub: a wall's slots as the wall's display settings lay them out, lit in the sorter's color
// while a scan waits for confirmation, kept live over the WebSocket event stream.
import { $, api, el, show, signInForm, textOn, token } from './common.js';

const FEED_MAX = 60;
const state = { wall: null, slots: new Map(), pending: new Map(), sorters: new Map(), lastEventId: null, ws: null, retry: 0, timer: null };

async function start() {
  $('#sign-out').hidden = !token.get();
  $('#queues').hidden = !claims().roles?.includes('Admin');
  if (!token.get()) return show('sign-in');
  let walls;
  try {
    walls = await api('GET', '/api/v1/walls');
  } catch (err) {
    if (err.status === 401) return signOut();
    throw err;
  }
  if (walls.length === 0) return show('no-walls');
  const select = $('#wall-select');
  select.replaceChildren(...walls.map((w) => el('option', { value: w.id, textContent: `${w.name} (${w.slotCount} slots)` })));
  const wanted = Number(new URLSearchParams(location.search).get('wall'));
  select.value = walls.some((w) => w.id === wanted) ? wanted : walls[0].id;
  select.hidden = false;
  await openWall(Number(select.value));
}

async function openWall(id) {
  closeStream();
  const wall = await api('GET', `/api/v1/walls/${id}`);
  history.replaceState(null, '', `?wall=${id}`);
  Object.assign(state, { wall, lastEventId: null, slots: new Map(), pending: new Map(), sorters: new Map() });
  for (const s of wall.slots) state.slots.set(s.crc, { ...s });
  for (const s of wall.sessions) state.sorters.set(s.userId, s);
  $('#feed').replaceChildren();
  await layout();
  renderSorters();
  show('wall');
  connect();
}

/** Places each slot at the cell the display settings give it (one segment after another). */
async function layout() {
  const { wall } = state;
  const slots = [...state.slots.values()];
  const grid = $('#grid');
  // Positions may have gaps (a detached slot keeps its number free): lay out up to the highest one.
  const last = Math.max(0, ...slots.map((s) => s.position));
  let cells = Array.from({ length: last }, (_, i) => ({ index: i + 1, x: i % 10, y: Math.floor(i / 10) }));
  if (last && wall.segmentRows && wall.segmentColumns) {
    const q = new URLSearchParams({ sortBoxes: last, segmentRows: wall.segmentRows, segmentColumns: wall.segmentColumns, flowDirection: wall.flowDirection });
    cells = await api('GET', `/api/v1/list-sortbox-displays?${q}`);
  }
  const byIndex = new Map(cells.map((c) => [c.index, c]));
  const cols = Math.max(1, ...cells.map((c) => c.x + 1));
  grid.style.setProperty('--cols', cols);
  grid.replaceChildren(
    ...slots.map((s) => {
      const c = byIndex.get(s.position) || { x: 0, y: 0 };
      const node = el('div.slot', { dataset: { crc: s.crc, position: s.position } }, el('b', { textContent: s.position }), el('small', { textContent: s.crc }), el('span.who'));
      node.style.gridColumn = String(c.x + 1);
      node.style.gridRow = String(c.y + 1);
      // A gap between segments, so the picture matches the physical wall.
      if (wall.segmentColumns && c.x > 0 && c.x % wall.segmentColumns === 0) node.classList.add('seg-start');
      return node;
    }),
  );
  for (const crc of state.slots.keys()) paintSlot(crc);
}

function paintSlot(crc) {
  const slot = state.slots.get(crc);
  const node = document.querySelector(`.slot[data-crc="${crc}"]`);
  if (!slot || !node) return;
  const lit = [...state.pending.values()].filter((p) => p.crc === crc).at(-1);
  node.dataset.status = slot.status;
  node.classList.toggle('lit', Boolean(lit));
  node.style.background = lit ? lit.colorHex : '';
  node.style.color = lit ? textOn(lit.colorHex) : '';
  $('.who', node).textContent = lit ? `${lit.color} · ${lit.sku}` : slot.status === 'Complete' ? 'Complete' : slot.orderId ? `order ${slot.orderId}` : '';
}

function renderSorters() {
  const list = [...state.sorters.values()];
  $('#sorters').replaceChildren(
    ...(list.length
      ? list.map((s) => el('li', {}, el('span.swatch', { style: { background: s.colorHex } }), `${s.color} · user ${s.userId}`))
      : [el('li.muted', { textContent: 'No sorter connected' })]),
  );
}

function setSlot(box) {
  if (!box || !state.slots.has(box.crc)) return;
  Object.assign(state.slots.get(box.crc), box);
  paintSlot(box.crc);
}

/** Applies one wall event to the picture and adds it to the feed. */
function apply(event) {
  state.lastEventId = event.id;
  const d = event.data || {};
  switch (event.type) {
    case 'session.started':
      state.sorters.set(d.session.userId, d.session);
      renderSorters();
      break;
    case 'session.ended': {
      const held = state.sorters.get(d.session.userId);
      if (held && held.startedAt === d.session.startedAt) state.sorters.delete(d.session.userId);
      renderSorters();
      break;
    }
    case 'sort-box-item.created':
      state.pending.set(d.item.id, { crc: d.item.crc, color: d.item.color, colorHex: d.item.colorHex, sku: d.item.sku });
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
    case 'wall.updated':
      // A new layout or name: read the wall again (the stream goes on from the last event).
      openWall(state.wall.id).catch(() => undefined);
      break;
  }
  addToFeed(event);
}

function describe(e) {
  const d = e.data || {};
  const slot = (b) => (b ? `slot ${b.position}` : '');
  switch (e.type) {
    case 'sort-box-item.created': return `${d.item.color} scanned ${d.item.sku} → ${slot(d.sortBox)}`;
    case 'sort-box-item.confirmed': return `${d.item.color} confirmed ${d.item.sku} in ${slot(d.sortBox)}`;
    case 'sort-box-item.cancelled': return `${d.item.color} cancelled ${d.item.sku}`;
    case 'sort-box-item.swapped': return `${d.item.color} moved ${d.item.sku}: ${slot(d.from)} → ${slot(d.to)}`;
    case 'sort-box.completed': return `${slot(d.sortBox)} complete (order ${d.orderId})`;
    case 'sort-box.released': return `${slot(d.sortBox)} released${d.forced ? ' (forced)' : ''}`;
    case 'session.started': return `${d.session.color} sorter connected (user ${d.session.userId})`;
    case 'session.ended': return `${d.session.color} sorter left (${d.session.endReason})`;
    case 'wall.updated': return 'wall settings changed';
    default: return e.type;
  }
}

function addToFeed(e) {
  const color = e.data?.item?.colorHex || e.data?.session?.colorHex;
  const time = new Date(e.occurredAt).toLocaleTimeString();
  const li = el('li', { dataset: { type: e.type } }, el('time', { textContent: time }), el('span.swatch', { style: { background: color || 'transparent' } }), describe(e));
  const feed = $('#feed');
  feed.prepend(li);
  while (feed.children.length > FEED_MAX) feed.lastChild.remove();
}

/** Opens the WebSocket; on a drop it comes back by itself, asking for what it missed (lastEventId). */
function connect() {
  const wallId = state.wall.id;
  const q = new URLSearchParams({ wallId, access_token: token.get() });
  if (state.lastEventId) q.set('lastEventId', state.lastEventId);
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/events/ws?${q}`);
  state.ws = ws;
  live('connecting');
  ws.onopen = () => {
    state.retry = 0;
    live('on');
  };
  ws.onmessage = (m) => {
    if (state.ws !== ws) return;
    try {
      apply(JSON.parse(m.data));
    } catch (err) {
      console.error('bad event', err);
    }
  };
  ws.onclose = () => {
    if (state.ws !== ws) return;
    live('off');
    const wait = Math.min(10_000, 500 * 2 ** state.retry++);
    state.timer = setTimeout(connect, wait);
  };
}

function closeStream() {
  clearTimeout(state.timer);
  const ws = state.ws;
  state.ws = null;
  if (ws) ws.close();
}

function live(s) {
  const node = $('#live');
  node.hidden = false;
  node.dataset.state = s;
  node.textContent = { on: 'live', off: 'offline: reconnecting', connecting: 'connecting…' }[s];
}

function signOut() {
  closeStream();
  token.clear();
  $('#wall-select').hidden = true;
  $('#live').hidden = true;
  $('#queues').hidden = true;
  begin();
}

/** What the token says about its holder (to offer the queue dashboard to Admins; the service decides). */
function claims() {
  try {
    return JSON.parse(atob(token.get().split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return {};
  }
}

async function openQueues() {
  try {
    const { url } = await api('POST', '/admin/queues/session');
    location.href = url;
  } catch (err) {
    alert(err.detail || err.message);
  }
}

/** Every start-up and wall change ends here when it fails: no rejection goes unhandled. */
const report = (err) => alert(err.detail || err.message);
function begin() {
  start().catch(report);
}

signInForm($('#sign-in form'), begin);
$('#queues').addEventListener('click', openQueues);
$('#sign-out').addEventListener('click', signOut);
$('#wall-select').addEventListener('change', (e) => openWall(Number(e.target.value)).catch(report));
begin();
