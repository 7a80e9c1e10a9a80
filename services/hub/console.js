// @ts-check
// The operator's console (/console, Managers and Admins): set up walls and their slots, the employees,
// the PIN and the subscription, label printers, webhooks, and file imports, through the public API
// only. Every change is confirmed in the notice line and every refusal shows the service's detail.
// Walls and printers are a Manager's; employees, the PIN, the subscription, webhooks and imports an
// Admin's (the service decides: a tab it would refuse is not offered).
// Each tab is a module of its own (console-walls.js, console-employees.js, console-printers.js,
// console-webhooks.js, console-imports.js); what they share is in console-ui.js.
import { api, show, signedInWalls, signInForm, token } from './common.js';
import { form, isAdmin, node, onSignInExpired, refuse, state } from './console-ui.js';
import { loadEmployees, wireEmployees } from './console-employees.js';
import { wireImports } from './console-imports.js';
import { loadPrinters, wirePrinters } from './console-printers.js';
import { renderWalls, selectWall, wireWalls } from './console-walls.js';
import { loadWebhooks, wireWebhooks } from './console-webhooks.js';

/** @typedef {import('./types').Responses} Responses */

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

onSignInExpired(signOut);
wireWalls();
wireEmployees();
wirePrinters();
wireWebhooks();
wireImports();

begin();
