// @ts-check
// The sorter's page: connect to a wall, scan a product, see the slot in your color, scan the slot's
// A- barcode to confirm. Built for a phone or a handheld whose scanner types the code and Enter. The
// field always says what it expects next; a reload (or another device of the same session) finds the
// scan still waiting (GET /walls/{id}/pending-items); leaving with a scan waiting asks first. It
// follows the wall's events (the hub's WebSocket): what happens to the scan on screen elsewhere (the
// slot's confirm or short button, a swap or a scan on another device, a Manager's release) and the end
// of the session (replaced by another device, disconnected, expired) show as they happen.
import { $, api, el, eventStream, randomId, scanField, show, signInForm, textOn, token } from './common.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {import('./types').EventData} EventData */
/** @typedef {import('./types').WallEvent} WallEvent */
/** The sorter's session (POST /walls/{id}/sessions) and the wall's name, kept in sessionStorage. */
/** @typedef {Responses['StartSorterSession'] & { wallName: string }} Session */
/** The scan on screen: the scan's answer, a pending item of the wall, an event's item. */
/** @typedef {EventData['sort-box-item.created']['item']} Item */
/** What a refusal on this page says: a Problem of api(), or one the page makes itself. */
/** @typedef {{ status?: number, code?: string, title?: string, detail?: string, message?: string }} Refusal */
/**
 * The data of the event types this page reads, one type's fields read in each case of onWallEvent.
 * @typedef {EventData['sort-box-item.created'] & EventData['sort-box-item.confirmed'] & EventData['sort-box-item.cancelled']
 *   & EventData['sort-box-item.swapped'] & EventData['sort-box.completed'] & EventData['session.ended']} SorterEventData
 */

const SESSION_KEY = 'sortingWall.session';
/**
 * The scan last sent without a final answer (503, 504 or none: a 504'd scan may still be applied):
 * `{ sessionToken, barcode, key }`. The same barcode scanned again in the same session resends its
 * Idempotency-Key, so the service answers the first scan's outcome instead of sorting the unit twice
 * (docs/api.md §1 "Retrying"). Kept in sessionStorage: a reload in between is the same retry.
 */
const UNANSWERED_KEY = 'sortingWall.unansweredScan';
/**
 * @type {{
 *   session: Session | null, item: Item | null, mode: 'scan' | 'swap' | 'serial', busy: boolean, pinLength: number,
 *   afterCancel: (() => Promise<unknown>) | null, joining: boolean, cancelling?: boolean, slotScan: string | null,
 * }}
 */
const state = {
  session: JSON.parse(sessionStorage.getItem(SESSION_KEY) || 'null'),
  item: null,
  mode: 'scan',
  busy: false,
  pinLength: 0,
  // What to do once the scan is cancelled (leaving the wall after the warning).
  afterCancel: null,
  // A wall being joined (connect): further taps are ignored until it answers.
  joining: false,
  // The slot's A- scan of a unit that needs its serial number (mode 'serial'): sent with the serial's scan.
  slotScan: null,
};

/** What the page keeps of the wall's events: the last one seen (a reconnect replays after it), the sorter's confirm and the slot completion they told last. */
/**
 * @type {{
 *   lastEventId: string | null,
 *   justConfirmed: { crc: string, orderId: number } | null,
 *   lastComplete: { crc: string, orderId: number, position: number } | null,
 * }}
 */
const live = { lastEventId: null, justConfirmed: null, lastComplete: null };

async function start() {
  $('#sign-out').hidden = !token.get();
  if (!token.get()) return show('sign-in');
  if (state.session) return sorting();
  try {
    /** @type {Responses['ListWalls']} */
    const walls = await api('GET', '/api/v1/walls');
    $('#wall-list').replaceChildren(
      ...walls.map((w) =>
        el('button.wall', { type: 'button', disabled: !w.isActive, onclick: () => connect(w) }, el('b', { textContent: w.name }), el('small', { textContent: `${w.connectedSorters}/${w.maxSorters} sorters` })),
      ),
    );
    if (!walls.length) $('#wall-list').append(el('p', { textContent: 'Your company has no walls yet.' }));
    show('walls');
  } catch (err) {
    if (err.status === 401) return signOut();
    refuse(err, '#walls-error');
  }
}

/** @param {Responses['ListWalls'][number]} wall */
async function connect(wall) {
  // One wall at a time: a second tap while the first is being joined would open a second session.
  if (state.joining) return;
  state.joining = true;
  $('#walls-error').hidden = true;
  try {
    /** @type {Responses['StartSorterSession']} */
    const session = await api('POST', `/api/v1/walls/${wall.id}/sessions`, { body: {} });
    setSession({ ...session, wallName: wall.name });
    sorting();
  } catch (err) {
    refuse(err, '#walls-error');
  } finally {
    state.joining = false;
  }
}

/** @param {Session | null} s */
function setSession(s) {
  state.session = s;
  if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(SESSION_KEY);
}

async function sorting() {
  const s = /** @type {Session} */ (state.session);
  const bar = $('#bar');
  bar.style.background = s.colorHex;
  bar.style.color = textOn(s.colorHex);
  $('#who').textContent = `You are ${s.color} · ${s.wallName}`;
  show('sorting');
  setItem(null);
  readPinLength();
  focusScan();
  follow();
  await restorePending();
}

const readPinLength = () => /** @type {Promise<Responses['GetPinLength']>} */ (api('GET', '/api/v1/security/pin/length')).then((n) => (state.pinLength = n), () => state.pinLength);

/** A scan of mine still waiting (after a reload, or scanned on another device of this session): shown again. */
async function restorePending() {
  const session = /** @type {Session} */ (state.session);
  try {
    /** @type {Responses['ListWallPendingItems']} */
    const pending = await api('GET', `/api/v1/walls/${session.wallId}/pending-items`);
    if (state.session !== session) return; // left (or joined another wall) meanwhile
    const mine = pending.filter((p) => p.userId === session.userId);
    if (mine.length && !state.item) setItem(mine[0]);
  } catch {
    // nothing to restore
  }
}

/**
 * Everything the scanner types lands here.
 * @param {string} code
 */
async function onScan(code) {
  if (state.busy) return;
  state.busy = true;
  clearRefusal();
  try {
    if (state.mode === 'swap') await swapTo(code);
    else if (state.mode === 'serial') await confirm(state.slotScan ?? '', code);
    else if (state.item && /^a-/i.test(code)) await confirm(code);
    else await scan(code);
  } catch (err) {
    if (err.code === 'session-ended') return leave(err.detail || 'Your session has ended: connect again.');
    refuse(err);
  } finally {
    state.busy = false;
    focusScan();
  }
}

/** @param {string} barcode */
async function scan(barcode) {
  if (/^[ab]-/i.test(barcode)) {
    throw { title: 'Scan a product first', detail: `${barcode} is a slot barcode; scan the product, then the slot it lights.` };
  }
  if (state.item) {
    // One unit at a time: a second scan would leave the first one lit and waiting.
    const { position, sorterBarcode } = state.item;
    throw { title: `Confirm slot ${position} first`, detail: `Put the unit in slot ${position} and scan ${sorterBarcode}, or cancel the scan.` };
  }
  const sessionToken = /** @type {Session} */ (state.session).token;
  const key = scanKey(sessionToken, barcode);
  sessionStorage.setItem(UNANSWERED_KEY, JSON.stringify({ sessionToken, barcode, key }));
  /** @type {Responses['CreateSortBoxItem']} */
  let item;
  try {
    item = await api('POST', '/api/v1/sort-box-items', { body: { sessionToken, barcode }, headers: { 'Idempotency-Key': key } });
  } catch (err) {
    if (!outcomeUnknown(err)) {
      sessionStorage.removeItem(UNANSWERED_KEY);
      throw err;
    }
    throw { title: err.title, detail: `${err.detail} Scan the same unit again to see its slot: it is not sorted twice.` };
  }
  sessionStorage.removeItem(UNANSWERED_KEY);
  setItem(item);
}

/** No answer, 503 or 504: the scan may or may not be applied (504 may apply later), only a retry with its key tells. */
const outcomeUnknown = (/** @type {Refusal} */ err) => err.status === 0 || err.status === 503 || err.status === 504;

/**
 * The key of the scan left unanswered when this is the same barcode in the same session (a retry), else a new one.
 * @param {string} sessionToken
 * @param {string} barcode
 * @returns {string}
 */
function scanKey(sessionToken, barcode) {
  const last = JSON.parse(sessionStorage.getItem(UNANSWERED_KEY) || 'null');
  return last && last.sessionToken === sessionToken && last.barcode === barcode ? last.key : randomId();
}

/**
 * @param {string} barcode
 * @param {string} [serial]
 */
async function confirm(barcode, serial) {
  const shown = /** @type {Item} */ (state.item);
  // A unit with a serial number: its slot's scan, then its serial's; a refused serial keeps asking for it.
  if (shown.requiresSerial && serial === undefined && barcode.toUpperCase() === shown.sorterBarcode.toUpperCase()) {
    state.slotScan = barcode;
    state.mode = 'serial';
    return setItem(shown);
  }
  /** @type {Responses['ConfirmSortBoxItem']} */
  let item;
  try {
    item = await api('PATCH', `/api/v1/sort-box-items/${shown.id}/confirm`, { body: serial === undefined ? { barcode } : { barcode, serial } });
  } catch (err) {
    // Confirmed meanwhile (the slot's button, another device): the unit is in, which is what was asked.
    if (err.code === 'item-already-confirmed') return settled(shown, 'confirmed');
    if (err.code === 'item-already-cancelled') return settled(shown, 'cancelled');
    throw err;
  }
  setItem(null, `✓ In slot ${item.position}`, item.remainingUnits > 0 ? `${item.remainingUnits} more of this order line` : '');
  // Not awaited: the next product may be scanned at once, while the page may still ask the wall.
  void completeCue(item);
}

const completedSeen = (/** @type {Item} */ item) => live.lastComplete && live.lastComplete.crc === item.crc && live.lastComplete.orderId === item.orderId;

/**
 * The scan on screen was finished elsewhere (its confirm or cancel answered "already ..."): shown as
 * what it is, the unit in or the scan gone, not as a refusal.
 * @param {Item} shown
 * @param {'confirmed' | 'cancelled'} how
 */
async function settled(shown, how) {
  if (state.item?.id !== shown.id) return;
  state.mode = 'scan';
  if (how === 'confirmed') {
    setItem(null, `✓ In slot ${shown.position}`, 'Already confirmed at the wall: nothing more to do for it.');
    void completeCue({ ...shown, remainingUnits: 0 });
  } else {
    setItem(null, 'Scan cancelled', `Your scan of ${shown.sku} was cancelled elsewhere: take the unit back and scan it again.`);
  }
}

/**
 * The order of that slot is complete: a cue the sorter cannot miss (the slot goes to the shipper).
 * @param {number} orderId
 * @param {number} position
 */
function showComplete(orderId, position) {
  if (state.item) return;
  $('#complete-detail').textContent = `Order ${orderId} is complete in slot ${position}: it goes to the shipper. Scan the next product.`;
  $('#complete').hidden = false;
}

/**
 * The slot's completion came as an event already, or the page asks the wall (the event may come later, or not at all while the stream is down).
 * Runs beside the next scan, never ahead of it: a scan is dropped while the page is busy, and the sorter
 * scans the next product as soon as the ✓ shows. Once a scan shows the next unit, the cue is left out (showComplete).
 * @param {Item} item
 */
async function completeCue(item) {
  if (item.remainingUnits > 0) return;
  if (completedSeen(item)) return showComplete(item.orderId, /** @type {{ position: number }} */ (live.lastComplete).position);
  try {
    /** @type {Responses['GetWall']} */
    const wall = await api('GET', `/api/v1/walls/${item.wallId}`);
    const slot = wall.slots.find((s) => s.crc === item.crc);
    if (slot?.status === 'Complete') showComplete(item.orderId, slot.position);
  } catch {
    // the cue is a help, not a step
  }
}

/** @param {string} barcode */
async function swapTo(barcode) {
  const shown = /** @type {Item} */ (state.item);
  /** @type {Responses['SwapSortBoxItemSlot']} */
  let item;
  try {
    item = await api('PATCH', `/api/v1/sort-box-items/${shown.id}/swap`, { body: { sessionToken: /** @type {Session} */ (state.session).token, barcode } });
  } catch (err) {
    if (err.code === 'item-already-confirmed') return settled(shown, 'confirmed');
    if (err.code === 'item-already-cancelled') return settled(shown, 'cancelled');
    throw err;
  }
  state.mode = 'scan';
  setItem(item);
}

/** @param {string} [pin] */
async function cancel(pin) {
  /** @type {Record<string, string>} */
  const headers = pin ? { 'X-Pin': pin } : {};
  const shown = state.item;
  if (!shown) return;
  state.cancelling = true;
  try {
    await api('PATCH', `/api/v1/sort-box-items/${shown.id}/cancel`, { headers });
  } catch (err) {
    // A PIN set (or enforced) since this page read its length: read it again and ask for it.
    if (err.code === 'pin-required') {
      await readPinLength();
      return askPin('A PIN is now needed to cancel a scan.');
    }
    // Cancelled meanwhile (the slot's short button, another device): what was asked is done.
    if (err.code !== 'item-already-cancelled' && err.code !== 'item-already-confirmed') throw err;
    if (err.code === 'item-already-confirmed') {
      state.afterCancel = null;
      return settled(shown, 'confirmed');
    }
  } finally {
    state.cancelling = false;
  }
  setItem(null, 'Scan cancelled', 'The unit goes back.');
  const next = state.afterCancel;
  state.afterCancel = null;
  if (next) await next();
}

function askPin(why = '') {
  /** @type {HTMLInputElement} */
  const pin = $('#pin');
  $('#leave-warning').hidden = true;
  $('#pin-form').hidden = false;
  $('#pin-why').textContent = why;
  pin.value = '';
  if (state.pinLength > 0) pin.maxLength = state.pinLength;
  else pin.removeAttribute('maxlength');
  pin.focus();
}

/**
 * Shows the slot the unit goes into, large and in the sorter's color; null shows the scan prompt, or
 * `message` (a ✓ when the unit is in, a notice when it must go back) with a smaller `detail` under it.
 * @param {Item | null} item
 * @param {string} [message]
 * @param {string} [detail]
 */
function setItem(item, message = '', detail = '') {
  state.item = item;
  if (!item) state.mode = 'scan';
  const box = $('#target');
  const s = /** @type {Session} */ (state.session);
  box.dataset.state = item ? (state.mode === 'swap' ? 'swap' : 'put') : 'idle';
  box.dataset.done = String(!item && Boolean(message) && message.startsWith('✓'));
  box.dataset.notice = String(!item && Boolean(message) && !message.startsWith('✓'));
  box.style.background = item ? s.colorHex : '';
  box.style.color = item ? textOn(s.colorHex) : '';
  if (item || message) $('#complete').hidden = true;
  $('#hint').textContent = item
    ? state.mode === 'swap' ? 'Scan the A- barcode of an empty slot' : `Put ${item.sku} in slot`
    : message || 'Scan a product';
  // The field says what it takes next.
  const expect = !item
    ? 'Scan a product'
    : state.mode === 'swap'
      ? 'Scan the A- code of an empty slot'
      : state.mode === 'serial'
        ? `Scan the serial number of the ${item.sku} unit`
        : `Scan slot ${item.position}'s code ${item.sorterBarcode}`;
  $('#expect').textContent = expect;
  /** @type {HTMLInputElement} */ ($('#scan')).placeholder = expect;
  document.body.dataset.expect = !item ? 'product' : state.mode === 'swap' ? 'swap-target' : state.mode === 'serial' ? 'serial' : 'slot';
  $('#slot-no').textContent = item ? String(item.position) : '';
  $('#slot-info').textContent = !item ? ''
    : state.mode === 'swap' ? `now in slot ${item.position}`
    : state.mode === 'serial' ? "now scan the unit's serial number"
    : `then scan ${item.sorterBarcode}${item.requiresSerial ? " and the unit's serial number" : ''}`;
  $('#detail').textContent = item ? '' : detail;
  /** @type {HTMLButtonElement} */ ($('#cancel')).disabled = !item;
  /** @type {HTMLButtonElement} */ ($('#swap')).disabled = !item;
  $('#swap').textContent = state.mode === 'swap' ? 'Keep this slot' : 'Swap slot';
}

/**
 * @param {Refusal} err
 * @param {string} [where]
 */
function refuse(err, where = '#refusal') {
  const node = $(where);
  node.hidden = false;
  if (where === '#refusal') {
    $('#refusal-title').textContent = err.title || 'Refused';
    $('#refusal-detail').textContent = err.detail || err.message || '';
  } else node.textContent = `${err.title || 'Refused'}: ${err.detail || err.message || ''}`;
}

function clearRefusal() {
  $('#refusal').hidden = true;
}

async function onCancel() {
  if (!state.item) return;
  clearRefusal();
  if (state.pinLength > 0) return askPin();
  await cancel().catch(refuse);
  focusScan();
}

/** @param {SubmitEvent} e */
async function onPin(e) {
  e.preventDefault();
  const pin = /** @type {HTMLInputElement} */ ($('#pin')).value;
  $('#pin-form').hidden = true;
  try {
    // Checked here too, for companies whose PIN is enforced by the app rather than the service.
    /** @type {Responses['ValidatePin']} */
    const { valid } = await api('POST', `/api/v1/security/pin/validate?${new URLSearchParams({ pin })}`);
    if (!valid) throw { title: 'Wrong PIN', detail: 'The scan was not cancelled. Ask your manager for the PIN.' };
    await cancel(pin);
  } catch (err) {
    refuse(err);
  }
  focusScan();
}

function onSwap() {
  if (!state.item) return;
  state.mode = state.mode === 'swap' ? 'scan' : 'swap';
  setItem(state.item);
  focusScan();
}

/** Leaving with a scan waiting: its slot stays lit for nobody unless it is cancelled; ask first. */
function onLeave() {
  if (!state.item) return leave();
  const item = state.item;
  $('#leave-text').textContent = `Your scan of ${item.sku} is waiting in slot ${item.position}. Put it in and scan ${item.sorterBarcode}, or cancel it before you leave.`;
  $('#leave-warning').hidden = false;
}

async function leaveAfterCancel() {
  $('#leave-warning').hidden = true;
  state.afterCancel = () => leave();
  await onCancel();
}

/** @param {string} [message] */
async function leave(message) {
  $('#leave-warning').hidden = true;
  $('#complete').hidden = true;
  $('#pin-form').hidden = true;
  const s = state.session;
  unfollow();
  setSession(null);
  state.item = null;
  state.mode = 'scan';
  $('#bar').style.background = '';
  $('#bar').style.color = '';
  $('#who').textContent = 'Sorter';
  if (s && !message) await api('DELETE', `/api/v1/walls/${s.wallId}/sessions/${encodeURIComponent(s.token)}`).catch(() => undefined);
  await start();
  if (message) refuse({ title: 'Disconnected', detail: message }, '#walls-error');
}

/** Follows the wall's events; on a drop it comes back by itself and catches up (lastEventId). */
const stream = eventStream({
  query: () => (state.session && token.get() ? { wallId: String(state.session.wallId), ...(live.lastEventId ? { lastEventId: live.lastEventId } : {}) } : null),
  onState: (s) => {
    if (s !== 'connecting') document.body.dataset.live = s;
  },
  // Back after a drop before any event came (nothing to replay from): ask what became of the scan on screen.
  onOpen: (again) => again && !live.lastEventId && resync(),
  onMessage: (data) => {
    try {
      const event = JSON.parse(data);
      live.lastEventId = event.id;
      onWallEvent(event);
    } catch (err) {
      console.error('bad event', err);
    }
  },
});
const follow = stream.connect;

async function resync() {
  const shown = state.item;
  if (!shown) return;
  try {
    /** @type {Responses['GetSortBoxItem']} */
    const now = await api('GET', `/api/v1/sort-box-items/${shown.id}`);
    if (now.status === 'Confirmed') await settled(shown, 'confirmed');
    else if (now.status === 'Cancelled') await settled(shown, 'cancelled');
  } catch {
    // the next scan tells
  }
}

function unfollow() {
  stream.close();
  Object.assign(live, { lastEventId: null, justConfirmed: null, lastComplete: null });
  delete document.body.dataset.live;
}

/**
 * Why the session ended, said to the sorter on the device it ended on.
 * @type {Record<string, string>}
 */
const ENDED = {
  Replaced: 'You connected to this wall on another device, so this one was disconnected. Connect again to sort here.',
  Disconnected: 'A Manager disconnected you from the wall.',
  Expired: 'Your session expired after inactivity: connect again.',
  Stopped: 'You left the wall on another device.',
};

/** The scan on screen was finished elsewhere: a question about it (PIN, leave warning) no longer stands. */
function finishedElsewhere() {
  state.mode = 'scan';
  state.afterCancel = null;
  $('#pin-form').hidden = true;
  $('#leave-warning').hidden = true;
  clearRefusal();
}

/**
 * One event of the wall: only what concerns this sorter's session and the scan on screen changes the page.
 * @param {WallEvent} e
 */
function onWallEvent(e) {
  const s = state.session;
  const d = /** @type {SorterEventData} */ (e.data || {});
  if (!s) return;
  const onScreen = (/** @type {Item} */ item) => item && state.item && item.id === state.item.id;
  const justConfirmed = live.justConfirmed;
  live.justConfirmed = null;
  switch (e.type) {
    case 'sort-box-item.created':
      // Scanned on another device of this session: this one shows it too.
      if (d.item.userId === s.userId && !state.item && !state.busy) setItem(d.item);
      break;
    case 'sort-box-item.confirmed':
      if (d.item.userId === s.userId) live.justConfirmed = { crc: d.item.crc, orderId: d.item.orderId };
      // The page's own confirm in flight: its answer shows it.
      if (onScreen(d.item) && !state.busy) {
        finishedElsewhere();
        setItem(null, `✓ In slot ${d.item.position}`, `Confirmed at the wall${d.item.remainingUnits > 0 ? ` · ${d.item.remainingUnits} more of this order line` : ''}`);
      }
      break;
    case 'sort-box.completed':
      // Right after a confirm of mine in that slot: the order is complete.
      if (justConfirmed && justConfirmed.crc === d.sortBox.crc && justConfirmed.orderId === d.orderId) {
        live.lastComplete = { crc: d.sortBox.crc, orderId: d.orderId, position: d.sortBox.position };
        showComplete(d.orderId, d.sortBox.position);
      }
      break;
    case 'sort-box-item.cancelled':
      // The page's own cancel in flight: its answer shows it (and leaves, if that was asked).
      if (onScreen(d.item) && d.reason !== 'session-ended' && !state.cancelling) {
        finishedElsewhere();
        setItem(
          null,
          'Scan cancelled',
          d.reason === 'short-button'
            ? `Slot ${d.item.position}'s short button cancelled it: take the unit back.`
            : d.reason === 'slot-force-released'
              ? `A Manager released slot ${d.item.position}: take the unit back and scan it again.`
              : 'The unit goes back.',
        );
      }
      break;
    case 'sort-box-item.swapped':
      // The page's own swap in flight: its answer shows it.
      if (onScreen(d.item) && !state.busy) {
        state.mode = 'scan';
        setItem({ .../** @type {Item} */ (state.item), ...d.item });
        $('#hint').textContent = `Moved from slot ${d.from.position}: put ${d.item.sku} in slot`;
      }
      break;
    case 'session.ended':
      if (d.session.id === s.id) leave(ENDED[String(d.session.endReason)] || 'Your session has ended: connect again.');
      break;
  }
}

async function signOut() {
  if (state.session) await leave();
  token.clear();
  start();
}

// The PIN form, while open, keeps the focus.
const focusScan = scanField(onScan, () => $('#pin-form').hidden);
signInForm($('#sign-in form'), start);
$('#cancel').addEventListener('click', onCancel);
$('#swap').addEventListener('click', onSwap);
$('#leave').addEventListener('click', onLeave);
$('#leave-cancel').addEventListener('click', () => leaveAfterCancel().catch(refuse));
$('#leave-stay').addEventListener('click', () => {
  $('#leave-warning').hidden = true;
  focusScan();
});
$('#pin-form').addEventListener('submit', onPin);
$('#pin-back').addEventListener('click', () => {
  $('#pin-form').hidden = true;
  state.afterCancel = null;
  focusScan();
});
$('#sign-out').addEventListener('click', signOut);
start();
