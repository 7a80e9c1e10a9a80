// @ts-check
// What the console's tabs share (console.js and its console-*.js modules): the page's state, small typed
// lookups of its own markup, and the notice line that confirms every change or shows the service's refusal.
import { $, el, Problem } from './common.js';

/** @typedef {import('./types').Responses} Responses */

export const state = {
  /** @type {Responses['GetAuthenticatedEmployee']['roles']} */ roles: [],
  /** @type {Responses['ListWalls']} */ walls: [],
  /** @type {Responses['GetWall'] | null} */ wall: null,
  /** @type {Responses['ListPrinters']} */ printers: [],
  /** @type {Responses['ListEmployees']} */ employees: [],
};

// ---- Small typed lookups (the page's own markup: the elements exist)

/** @param {string} sel @returns {HTMLElement} */
export const node = (sel) => /** @type {HTMLElement} */ ($(sel));
/** @param {string} sel @returns {HTMLFormElement} */
export const form = (sel) => /** @type {HTMLFormElement} */ ($(sel));
/** @param {HTMLFormElement} f @param {string} name @returns {HTMLInputElement} */
export const field = (f, name) => /** @type {HTMLInputElement} */ (f.elements.namedItem(name));
/** @param {HTMLFormElement} f @param {string} name */
export const value = (f, name) => field(f, name).value.trim();
/** @param {string | null} iso */
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '–');
/** @param {string} tag @param {string | number} text @param {string} [cls] */
export const cell = (tag, text, cls) => el(cls ? `${tag}.${cls}` : tag, { textContent: String(text) });
/** @param {string} text @param {() => void} onClick @param {string} [cls] */
export const button = (text, onClick, cls = 'secondary') => el(`button.${cls}`, { type: 'button', textContent: text, onclick: onClick });
export const isAdmin = () => state.roles.includes('Admin');

/** What an expired sign-in does: console.js sends it back to the form. */
let signInExpired = () => {};
/** @param {() => void} then */
export function onSignInExpired(then) {
  signInExpired = then;
}

// ---- Confirmations and refusals

/** @param {string} text @param {'ok' | 'bad'} [kind] */
export function say(text, kind = 'ok') {
  const n = node('#notice');
  n.hidden = false;
  n.dataset.kind = kind;
  n.textContent = text;
}

/** A refusal as the service worded it; an expired sign-in goes back to the form. @param {unknown} err */
export function refuse(err) {
  if (err instanceof Problem) {
    if (err.status === 401) return signInExpired();
    say(err.detail ? `${err.title}: ${err.detail}` : err.title, 'bad');
  } else {
    say(err instanceof Error ? err.message : String(err), 'bad');
  }
}

/** Runs a change: its confirmation on success, the refusal otherwise. @param {() => Promise<string>} change */
export async function act(change) {
  try {
    say(await change());
  } catch (err) {
    refuse(err);
  }
}
