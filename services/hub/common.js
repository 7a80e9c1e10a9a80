// Shared by the hub, sorter, shipper and insights pages: the token in sessionStorage, fetch with
// problem+json errors, the sign-in form, the walls a signed-in page starts from, the scan field, and
// small DOM helpers. No framework: each page is a few hundred lines.

const TOKEN_KEY = 'sortingWall.token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (t) => sessionStorage.setItem(TOKEN_KEY, t),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** A refusal of the service: `title` and `detail` come from its problem+json answer. */
export class Problem extends Error {
  constructor(status, body) {
    super(body.detail || body.title || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || 'error';
    this.title = body.title || `Error ${status}`;
    this.detail = body.detail || '';
  }
}

/** Calls the API with the bearer token; answers the JSON body or throws a Problem. */
export async function api(method, path, { body, headers = {} } = {}) {
  const h = { ...headers };
  const t = token.get();
  if (t) h.Authorization = `Bearer ${t}`;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new Problem(0, { title: 'No connection', detail: 'The service cannot be reached. Check the network and try again.' });
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 200) };
  }
  if (!res.ok) throw new Problem(res.status, data || {});
  return data;
}

/** A random id for Idempotency-Key; getRandomValues works on plain http too (randomUUID does not). */
export function randomId() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export const $ = (sel, root = document) => root.querySelector(sel);

/** Creates an element: el('div.slot', { dataset: {...} }, 'text', child). */
export function el(tag, props = {}, ...children) {
  const [name, ...classes] = tag.split('.');
  const node = document.createElement(name);
  if (classes.length) node.className = classes.join(' ');
  for (const [k, v] of Object.entries(props)) {
    if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k === 'style') Object.assign(node.style, v);
    else node[k] = v;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** Black or white text, whichever reads better on the sorter's color. */
export function textOn(hex) {
  const n = parseInt(hex.replace('#', ''), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111' : '#fff';
}

/** Wires the page's sign-in form: POST /token, keep the token, then call onSignedIn. */
export function signInForm(form, onSignedIn) {
  const error = $('.form-error', form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const data = new FormData(form);
    try {
      const res = await api('POST', '/token', { body: { username: data.get('username'), password: data.get('password') } });
      token.set(res.access_token);
      form.reset();
      onSignedIn();
    } catch (err) {
      error.textContent = err.detail || err.message;
    }
  });
}

/** Shows exactly one of the page's sections (by id). */
export function show(id) {
  for (const s of document.querySelectorAll('main > section')) s.hidden = s.id !== id;
}

/** What the token says about its holder: for the buttons and words a page offers; the service decides. */
export function claims() {
  try {
    return JSON.parse(atob(token.get().split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return {};
  }
}

/**
 * How a signed-in page starts: without a token, the sign-in form and null; with one, the company's
 * walls, or null after `onRefused` where the service no longer takes the token.
 */
export async function signedInWalls(onRefused) {
  $('#sign-out').hidden = !token.get();
  if (!token.get()) {
    show('sign-in');
    return null;
  }
  try {
    return await api('GET', '/api/v1/walls');
  } catch (err) {
    if (err.status !== 401) throw err;
    onRefused();
    return null;
  }
}

/**
 * Fills #wall-select with `walls` (not empty) and selects the one of the address (?wall=), else
 * `remembered`, else the first; answers the select.
 */
export function selectWall(walls, label, remembered = 0) {
  const select = $('#wall-select');
  select.replaceChildren(...walls.map((w) => el('option', { value: w.id, textContent: label(w) })));
  const wanted = Number(new URLSearchParams(location.search).get('wall')) || remembered;
  select.value = walls.some((w) => w.id === wanted) ? wanted : walls[0].id;
  return select;
}

/**
 * The scan field (#scan in #scan-form) of a page used with a wedge scanner, which types the code and
 * Enter: each code goes to `onCode`, and the field takes the focus back whenever it loses it (to a
 * tap elsewhere, not to a control or a select) while `wanted()` says so. Answers the function that
 * gives the field the focus.
 */
export function scanField(onCode, wanted = () => true) {
  const input = $('#scan');
  const focus = () => {
    if (wanted() && document.activeElement !== input) input.focus({ preventScroll: true });
  };
  $('#scan-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const code = input.value.trim();
    input.value = '';
    if (code) await onCode(code);
  });
  input.addEventListener('blur', () => setTimeout(() => !document.activeElement?.closest?.('select') && focus(), 0));
  document.addEventListener('click', (e) => {
    if (!e.target.closest('button, input, select, a')) focus();
  });
  return focus;
}

/** The #live pill: whether the page's event stream is connected. */
export function showLive(s) {
  const node = $('#live');
  node.hidden = false;
  node.dataset.state = s;
  node.textContent = { on: 'live', off: 'offline: reconnecting', connecting: 'connecting…' }[s];
}

/**
 * A wall's event stream (/api/v1/events/ws): one socket at a time, so a socket (or a reconnect) left
 * from before is closed first, and a socket no longer the stream's is ignored. On a drop it comes back
 * by itself, after 0.5 s doubling up to 10 s. `query()` names the wall (and the last event seen, for
 * what was missed), or is null when there is nothing to follow; `onState` hears 'connecting', 'on' and
 * 'off' (by default the #live pill shows them); `onOpen(again)` is told whether the socket replaces a
 * dropped one; `onMessage(data, ws)` takes each message, and `isCurrent(ws)` tells a handler still at
 * work whether its socket is still the stream's.
 */
export function eventStream({ query, onMessage, onOpen = () => undefined, onState = showLive }) {
  let ws = null;
  let timer = null;
  let retry = 0;
  function close() {
    clearTimeout(timer);
    timer = null;
    const old = ws;
    ws = null;
    if (old) old.close();
  }
  function connect() {
    close();
    const params = query();
    if (!params) return;
    const q = new URLSearchParams({ ...params, access_token: token.get() });
    const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/events/ws?${q}`);
    ws = socket;
    const again = retry > 0;
    onState('connecting');
    socket.onopen = () => {
      if (ws !== socket) return;
      retry = 0;
      onState('on');
      onOpen(again);
    };
    socket.onmessage = (m) => {
      if (ws === socket) onMessage(m.data, socket);
    };
    socket.onclose = () => {
      if (ws !== socket) return;
      onState('off');
      timer = setTimeout(connect, Math.min(10_000, 500 * 2 ** retry++));
    };
  }
  return { connect, close, isCurrent: (socket) => ws === socket };
}
