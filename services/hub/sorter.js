// The sorter's page: connect to a wall, scan a product, see the slot in your color, scan the slot's
// A- barcode to confirm. Built for a phone or a handheld whose scanner types the code and Enter. The
// field always says what it expects next; a reload (or another device of the same session) finds the
// scan still waiting (GET /walls/{id}/pending-items); leaving with a scan waiting asks first.
import { $, api, el, randomId, show, signInForm, textOn, token } from './common.js';

const SESSION_KEY = 'sortingWall.session';
const state = {
  session: JSON.parse(sessionStorage.getItem(SESSION_KEY) || 'null'),
  item: null,
  mode: 'scan',
  busy: false,
  pinLength: 0,
  // What to do once the scan is cancelled (leaving the wall after the warning).
  afterCancel: null,
};

async function start() {
  $('#sign-out').hidden = !token.get();
  if (!token.get()) return show('sign-in');
  if (state.session) return sorting();
  try {
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

async function connect(wall) {
  $('#walls-error').hidden = true;
  try {
    const session = await api('POST', `/api/v1/walls/${wall.id}/sessions`, { body: {} });
    setSession({ ...session, wallName: wall.name });
    sorting();
  } catch (err) {
    refuse(err, '#walls-error');
  }
}

function setSession(s) {
  state.session = s;
  if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(SESSION_KEY);
}

async function sorting() {
  const s = state.session;
  const bar = $('#bar');
  bar.style.background = s.colorHex;
  bar.style.color = textOn(s.colorHex);
  $('#who').textContent = `You are ${s.color} · ${s.wallName}`;
  show('sorting');
  setItem(null);
  readPinLength();
  focusScan();
  await restorePending();
}

const readPinLength = () => api('GET', '/api/v1/security/pin/length').then((n) => (state.pinLength = n), () => state.pinLength);

/** A scan of mine still waiting (after a reload, or scanned on another device of this session): shown again. */
async function restorePending() {
  try {
    const pending = await api('GET', `/api/v1/walls/${state.session.wallId}/pending-items`);
    const mine = pending.filter((p) => p.userId === state.session.userId);
    if (mine.length && !state.item) setItem(mine[0]);
  } catch {
    // nothing to restore
  }
}

/** Everything the scanner types lands here: the field takes the focus back whenever it loses it. */
function focusScan() {
  if (!$('#pin-form').hidden) return;
  const input = $('#scan');
  if (document.activeElement !== input) input.focus({ preventScroll: true });
}

async function onScan(e) {
  e.preventDefault();
  const input = $('#scan');
  const code = input.value.trim();
  input.value = '';
  if (!code || state.busy) return;
  state.busy = true;
  clearRefusal();
  try {
    if (state.mode === 'swap') await swapTo(code);
    else if (state.item && /^a-/i.test(code)) await confirm(code);
    else await scan(code);
  } catch (err) {
    if (err.code === 'session-ended') return leave('Your session has ended: connect again.');
    refuse(err);
  } finally {
    state.busy = false;
    focusScan();
  }
}

async function scan(barcode) {
  if (/^[ab]-/i.test(barcode)) {
    throw { title: 'Scan a product first', detail: `${barcode} is a slot barcode; scan the product, then the slot it lights.` };
  }
  if (state.item) {
    // One unit at a time: a second scan would leave the first one lit and waiting.
    const { position, sorterBarcode } = state.item;
    throw { title: `Confirm slot ${position} first`, detail: `Put the unit in slot ${position} and scan ${sorterBarcode}, or cancel the scan.` };
  }
  const item = await api('POST', '/api/v1/sort-box-items', {
    body: { sessionToken: state.session.token, barcode },
    headers: { 'Idempotency-Key': randomId() },
  });
  setItem(item);
}

async function confirm(barcode) {
  const item = await api('PATCH', `/api/v1/sort-box-items/${state.item.id}/confirm`, { body: { barcode } });
  setItem(null, `✓ In slot ${item.position}${item.remainingUnits > 0 ? ` · ${item.remainingUnits} more of this order line` : ''}`);
  await completeCue(item);
}

/** The order of that slot is complete: a cue the sorter cannot miss (the slot goes to the shipper). */
async function completeCue(item) {
  if (item.remainingUnits > 0) return;
  try {
    const wall = await api('GET', `/api/v1/walls/${item.wallId}`);
    const slot = wall.slots.find((s) => s.crc === item.crc);
    if (slot?.status !== 'Complete' || state.item) return;
    $('#complete-detail').textContent = `Order ${item.orderId} is complete in slot ${slot.position}: it goes to the shipper. Scan the next product.`;
    $('#complete').hidden = false;
  } catch {
    // the cue is a help, not a step
  }
}

async function swapTo(barcode) {
  const item = await api('PATCH', `/api/v1/sort-box-items/${state.item.id}/swap`, { body: { sessionToken: state.session.token, barcode } });
  state.mode = 'scan';
  setItem(item);
}

async function cancel(pin) {
  const headers = pin ? { 'X-Pin': pin } : {};
  try {
    await api('PATCH', `/api/v1/sort-box-items/${state.item.id}/cancel`, { headers });
  } catch (err) {
    // A PIN set (or enforced) since this page read its length: read it again and ask for it.
    if (err.code === 'pin-required') {
      await readPinLength();
      return askPin('A PIN is now needed to cancel a scan.');
    }
    throw err;
  }
  setItem(null, 'Scan cancelled: the unit goes back.');
  const next = state.afterCancel;
  state.afterCancel = null;
  if (next) await next();
}

function askPin(why = '') {
  $('#leave-warning').hidden = true;
  $('#pin-form').hidden = false;
  $('#pin-why').textContent = why;
  $('#pin').value = '';
  if (state.pinLength > 0) $('#pin').maxLength = state.pinLength;
  else $('#pin').removeAttribute('maxlength');
  $('#pin').focus();
}

/** Shows the slot the unit goes into, large and in the sorter's color; null shows the scan prompt. */
function setItem(item, message) {
  state.item = item;
  const box = $('#target');
  const s = state.session;
  box.dataset.state = item ? (state.mode === 'swap' ? 'swap' : 'put') : 'idle';
  box.dataset.done = String(!item && Boolean(message) && message.startsWith('✓'));
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
      : `Scan slot ${item.position}'s code ${item.sorterBarcode}`;
  $('#expect').textContent = expect;
  $('#scan').placeholder = expect;
  document.body.dataset.expect = !item ? 'product' : state.mode === 'swap' ? 'swap-target' : 'slot';
  $('#slot-no').textContent = item ? item.position : '';
  $('#slot-info').textContent = item ? (state.mode === 'swap' ? `now in slot ${item.position}` : `then scan ${item.sorterBarcode}`) : '';
  $('#cancel').disabled = !item;
  $('#swap').disabled = !item;
  $('#swap').textContent = state.mode === 'swap' ? 'Keep this slot' : 'Swap slot';
}

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

async function onPin(e) {
  e.preventDefault();
  const pin = $('#pin').value;
  $('#pin-form').hidden = true;
  try {
    // Checked here too, for companies whose PIN is enforced by the app rather than the service.
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
  $('#leave-text').textContent = `Your scan of ${state.item.sku} is waiting in slot ${state.item.position}. Put it in and scan ${state.item.sorterBarcode}, or cancel it before you leave.`;
  $('#leave-warning').hidden = false;
}

async function leaveAfterCancel() {
  $('#leave-warning').hidden = true;
  state.afterCancel = () => leave();
  await onCancel();
}

async function leave(message) {
  $('#leave-warning').hidden = true;
  $('#complete').hidden = true;
  const s = state.session;
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

async function signOut() {
  if (state.session) await leave();
  token.clear();
  start();
}

signInForm($('#sign-in form'), start);
$('#scan-form').addEventListener('submit', onScan);
$('#scan').addEventListener('blur', () => setTimeout(focusScan, 0));
document.addEventListener('click', (e) => {
  if (!e.target.closest('button, input, select')) focusScan();
});
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
