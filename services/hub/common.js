// @ts-check
// Shared by the hub, sorter, shipper and insights pages: the token in sessionStorage, fetch with
// problem+json errors, the sign-in form, the walls a signed-in page starts from, the scan field, and
// small DOM helpers. No framework: each page is a few hundred lines. Typed with JSDoc against the API's
// declarations (types.d.ts, `npm run pages:types`), checked by `npm run lint`.

/** @typedef {import('./types').Responses} Responses */

const TOKEN_KEY = 'sortingWall.token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (/** @type {string} */ t) => sessionStorage.setItem(TOKEN_KEY, t),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** A refusal of the service: `title` and `detail` come from its problem+json answer. */
export class Problem extends Error {
  /**
   * @param {number} status
   * @param {{ code?: string, title?: string, detail?: string }} body
   */
  constructor(status, body) {
    super(body.detail || body.title || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || 'error';
    this.title = body.title || `Error ${status}`;
    this.detail = body.detail || '';
  }
}

/**
 * Calls the API with the bearer token; answers the JSON body or throws a Problem. The answer is what
 * the caller declares it to be (a JSDoc type of types.d.ts, e.g. Responses['GetWall'] on the variable
 * it goes to); undeclared, it is `unknown`, and a page cannot read a field of it unchecked.
 * @template [T=unknown]
 * @param {string} method
 * @param {string} path
 * @param {{ body?: unknown, headers?: Record<string, string> }} [options]
 * @returns {Promise<T>}
 */
export async function api(method, path, { body, headers = {} } = {}) {
  /** @type {Record<string, string>} */
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

/**
 * The element `sel` finds (in `root`, else the page). The pages ask for elements their HTML has, so it
 * is typed as found; a kind of element beyond HTMLElement (an input, a select) is the caller's to
 * declare, as the JSDoc type of the variable it goes to (HTMLInputElement for #scan).
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} sel
 * @param {ParentNode} [root]
 * @returns {E}
 */
export const $ = (sel, root = document) => /** @type {E} */ (root.querySelector(sel));

/**
 * Creates an element: el('div.slot', { dataset: {...} }, 'text', child).
 * @param {string} tag
 * @param {{ dataset?: Record<string, string | number>, style?: Partial<CSSStyleDeclaration>, [property: string]: unknown }} [props]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function el(tag, props = {}, ...children) {
  const [name, ...classes] = tag.split('.');
  const node = document.createElement(name);
  if (classes.length) node.className = classes.join(' ');
  for (const [k, v] of Object.entries(props)) {
    if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k === 'style') Object.assign(node.style, v);
    else /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (node))[k] = v; // any property of the element (textContent, onclick, hidden, …)
  }
  node.append(.../** @type {(Node | string)[]} */ (children.filter((c) => c !== null && c !== undefined && c !== false)));
  return node;
}

/**
 * Black or white text, whichever reads better on the sorter's color.
 * @param {string} hex
 */
export function textOn(hex) {
  const n = parseInt(hex.replace('#', ''), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111' : '#fff';
}

/**
 * Wires the page's sign-in form: POST /token, keep the token, then call onSignedIn.
 * @param {HTMLFormElement} form
 * @param {() => unknown} onSignedIn
 */
export function signInForm(form, onSignedIn) {
  const error = $('.form-error', form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const data = new FormData(form);
    try {
      /** @type {Responses['CreateToken']} */
      const res = await api('POST', '/token', { body: { username: data.get('username'), password: data.get('password') } });
      token.set(res.access_token);
      form.reset();
      onSignedIn();
    } catch (err) {
      error.textContent = err.detail || err.message;
    }
  });
}

/**
 * Shows exactly one of the page's sections (by id).
 * @param {string} id
 */
export function show(id) {
  for (const s of document.querySelectorAll('main > section')) /** @type {HTMLElement} */ (s).hidden = s.id !== id;
}

/**
 * What the token says about its holder: for the buttons and words a page offers; the service decides.
 * @returns {{ roles?: string[], [claim: string]: unknown }}
 */
export function claims() {
  try {
    return JSON.parse(atob(/** @type {string} */ (token.get()).split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return {};
  }
}

/**
 * How a signed-in page starts: without a token, the sign-in form and null; with one, the company's
 * walls, or null after `onRefused` where the service no longer takes the token.
 * @param {() => unknown} onRefused
 * @returns {Promise<Responses['ListWalls'] | null>}
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
 * @param {Responses['ListWalls']} walls
 * @param {(wall: Responses['ListWalls'][number]) => string} label
 * @param {number} [remembered]
 * @returns {HTMLSelectElement}
 */
export function selectWall(walls, label, remembered = 0) {
  /** @type {HTMLSelectElement} */
  const select = $('#wall-select');
  select.replaceChildren(...walls.map((w) => el('option', { value: w.id, textContent: label(w) })));
  const wanted = Number(new URLSearchParams(location.search).get('wall')) || remembered;
  select.value = String(walls.some((w) => w.id === wanted) ? wanted : walls[0].id);
  return select;
}

/**
 * The scan field (#scan in #scan-form) of a page used with a wedge scanner, which types the code and
 * Enter: each code goes to `onCode`, and the field takes the focus back whenever it loses it (to a
 * tap elsewhere, not to a control or a select) while `wanted()` says so. Answers the function that
 * gives the field the focus.
 * @param {(code: string) => unknown} onCode
 * @param {() => boolean} [wanted]
 * @returns {() => void}
 */
export function scanField(onCode, wanted = () => true) {
  /** @type {HTMLInputElement} */
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
    if (!/** @type {Element} */ (e.target).closest('button, input, select, a')) focus();
  });
  return focus;
}

/** @typedef {'connecting' | 'on' | 'off'} StreamState */

/**
 * The #live pill: whether the page's event stream is connected.
 * @param {StreamState} s
 */
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
 * @param {{
 *   query: () => Record<string, string> | null,
 *   onMessage: (data: string, ws: WebSocket) => void,
 *   onOpen?: (again: boolean) => unknown,
 *   onState?: (state: StreamState) => void,
 * }} options
 */
export function eventStream({ query, onMessage, onOpen = () => undefined, onState = showLive }) {
  /** @type {WebSocket | null} */
  let ws = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer = undefined;
  let retry = 0;
  function close() {
    clearTimeout(timer);
    timer = undefined;
    const old = ws;
    ws = null;
    if (old) old.close();
  }
  function connect() {
    close();
    const params = query();
    if (!params) return;
    const q = new URLSearchParams({ ...params, access_token: /** @type {string} */ (token.get()) });
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
    socket.onmessage = (/** @type {MessageEvent<string>} */ m) => {
      if (ws === socket) onMessage(m.data, socket);
    };
    socket.onclose = () => {
      if (ws !== socket) return;
      onState('off');
      timer = setTimeout(connect, Math.min(10_000, 500 * 2 ** retry++));
    };
  }
  return { connect, close, isCurrent: (/** @type {WebSocket} */ socket) => ws === socket };
}
