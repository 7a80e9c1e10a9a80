// @ts-check
// The console's Employees tab (Admins): the employees with their roles (Save roles, Deactivate), a new
// employee, a password reset, the PIN and where it is enforced, the sorting subscription and its usage.
import { api, el } from './common.js';
import { act, button, cell, field, form, node, refuse, state, value } from './console-ui.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {Responses['ListEmployees'][number]} Employee */
/** What PATCH /admin/employees/{id} changes here (only the fields given). */
/** @typedef {{ roles?: string[], isActive?: boolean, password?: string }} EmployeeChange */

/** @type {Employee['roles']} */
const ROLES = ['Sorter', 'Manager', 'Admin'];

export async function loadEmployees() {
  state.employees = await api('GET', '/api/v1/admin/employees');
  node('#employees').replaceChildren(...state.employees.map(employeeRow));
  const select = /** @type {HTMLSelectElement} */ (form('#reset-password').elements.namedItem('id'));
  select.replaceChildren(...state.employees.map((e) => el('option', { value: String(e.id), textContent: `${e.firstName} ${e.lastName} (${e.email})` })));
  /** @type {Responses['GetSecurityPin']} */
  const pin = await api('GET', '/api/v1/admin/security/pin');
  node('#pin-state').textContent = pin.pinLength
    ? `(a PIN of ${pin.pinLength} characters, enforced by ${pin.enforcement === 'server' ? 'the service too' : 'the sorter page'})`
    : '(no PIN set)';
  // A choice the person made meanwhile stands (this read can finish after they picked one).
  const enforcement = /** @type {HTMLSelectElement} */ (form('#pin').elements.namedItem('enforcement'));
  if (form('#pin').dataset.edited !== 'true') enforcement.value = pin.enforcement;
  /** @type {Responses['GetSortingSubscription']} */
  const enabled = await api('GET', '/api/v1/subscriptions/sorting');
  node('#subscription-state').textContent = enabled ? '(enabled)' : '(disabled: sorting is refused)';
  node('#subscription-toggle').textContent = enabled ? 'Disable sorting' : 'Enable sorting (free)';
  node('#subscription-toggle').dataset.enabled = String(enabled);
  await loadUsage();
}

/** @param {Employee} e */
function employeeRow(e) {
  const boxes = ROLES.map((r) => el('label.role', {}, el('input', { type: 'checkbox', value: r, checked: e.roles.includes(r) }), ` ${r}`));
  const name = `${e.firstName} ${e.lastName}`;
  return el(
    'tr',
    { dataset: { email: e.email }, className: e.isActive ? '' : 'inactive' },
    cell('td', name),
    cell('td', e.email),
    el('td', {}, ...boxes),
    cell('td', e.isActive ? 'Active' : 'Deactivated', e.isActive ? 'ok' : 'off'),
    el(
      'td.row-actions',
      {},
      button('Save roles', () => {
        const roles = boxes.map((b) => /** @type {HTMLInputElement} */ (b.firstChild)).filter((i) => i.checked).map((i) => i.value);
        return changeEmployee(e, { roles }, `${name}'s roles are now ${roles.join(', ')}.`);
      }),
      button(e.isActive ? 'Deactivate' : 'Reactivate', () =>
        changeEmployee(e, { isActive: !e.isActive }, e.isActive ? `${name} is deactivated: signed out everywhere within seconds.` : `${name} may sign in again.`),
      ),
    ),
  );
}

/** @param {Employee} e @param {EmployeeChange} body @param {string} done */
function changeEmployee(e, body, done) {
  return act(async () => {
    await api('PATCH', `/api/v1/admin/employees/${e.id}`, { body });
    await loadEmployees();
    return done;
  });
}

async function loadUsage() {
  const f = form('#subscription');
  if (!value(f, 'month')) field(f, 'month').value = new Date().toISOString().slice(0, 7);
  /** @type {Responses['GetSortingUsage']} */
  const usage = await api('GET', `/api/v1/admin/subscriptions/sorting/usage?month=${encodeURIComponent(value(f, 'month'))}`);
  node('#usage').textContent = `${usage.slotsUsed} slot${usage.slotsUsed === 1 ? '' : 's'} used in ${usage.month} (slots that took a confirmed unit: the billing figure)`;
}

/** The tab's forms and buttons. */
export function wireEmployees() {
  form('#new-employee').addEventListener('submit', (e) => {
    e.preventDefault();
    const f = form('#new-employee');
    const roles = [...f.querySelectorAll('input[name=roles]:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value);
    const body = { firstName: value(f, 'firstName'), lastName: value(f, 'lastName'), email: value(f, 'email'), password: field(f, 'password').value, roles };
    act(async () => {
      /** @type {Responses['CreateEmployee']} */
      const added = await api('POST', '/api/v1/admin/employees', { body });
      f.reset();
      await loadEmployees();
      return `${added.firstName} ${added.lastName} is added (${added.roles.join(', ')}): they sign in as ${added.email}.`;
    });
  });

  form('#reset-password').addEventListener('submit', (e) => {
    e.preventDefault();
    const f = form('#reset-password');
    const id = Number(/** @type {HTMLSelectElement} */ (f.elements.namedItem('id')).value);
    const who = state.employees.find((x) => x.id === id);
    act(async () => {
      await api('PATCH', `/api/v1/admin/employees/${id}`, { body: { password: field(f, 'password').value } });
      f.reset();
      return `${who ? `${who.firstName} ${who.lastName}'s` : 'The'} password is changed: their devices are signed out and they sign in with the new one.`;
    });
  });

  /** @type {HTMLSelectElement} */ (form('#pin').elements.namedItem('enforcement')).addEventListener('change', () => (form('#pin').dataset.edited = 'true'));
  form('#pin').addEventListener('submit', (e) => {
    e.preventDefault();
    const f = form('#pin');
    const pin = field(f, 'pin').value || null;
    const enforcement = /** @type {HTMLSelectElement} */ (f.elements.namedItem('enforcement')).value;
    act(async () => {
      /** @type {Responses['SetSecurityPin']} */
      const res = await api('PUT', '/api/v1/admin/security/pin', { body: { pin, enforcement } });
      f.reset();
      delete f.dataset.edited;
      await loadEmployees();
      return res.pinLength
        ? `The PIN is set (${res.pinLength} characters), enforced by ${res.enforcement === 'server' ? 'the service too' : 'the sorter page'}.`
        : 'The PIN is removed: cancels no longer ask for one.';
    });
  });

  node('#subscription-toggle').addEventListener('click', () => {
    const enabled = node('#subscription-toggle').dataset.enabled !== 'true';
    act(async () => {
      await api('PUT', '/api/v1/admin/subscriptions/sorting', { body: { enabled } });
      await loadEmployees();
      return enabled ? 'Sorting is enabled.' : 'Sorting is disabled: connects, scans and releases are refused until it is enabled again.';
    });
  });

  field(form('#subscription'), 'month').addEventListener('change', () => loadUsage().catch(refuse));
}
