// @ts-check
// The console's Printers tab (Managers): the label printers with their health (Test print, Remove),
// a printer's latest print jobs, a new printer. A wall names its printer on the Walls tab.
import { api, el } from './common.js';
import { act, button, cell, form, node, refuse, state, value, when } from './console-ui.js';
import { renderWall } from './console-walls.js';

/** @typedef {import('./types').Responses} Responses */
/** @typedef {Responses['ListPrinters'][number]} Printer */

export async function loadPrinters() {
  state.printers = await api('GET', '/api/v1/printers');
  node('#printers').replaceChildren(
    ...state.printers.map((p) =>
      el(
        'tr',
        {},
        cell('td', p.name),
        cell('td', `${p.host}:${p.port}`, 'mono'),
        cell('td', when(p.lastPrintedAt)),
        cell('td', p.lastError ?? '–', p.lastError ? 'bad' : ''),
        el(
          'td.row-actions',
          {},
          button('Test print', () =>
            act(async () => {
              /** @type {Responses['PrintTestLabel']} */
              const job = await api('POST', `/api/v1/printers/${p.id}/test`);
              await showJobs(p);
              return `Test label for ${p.name} queued as print job ${job.id}: it shows Sent once the printer took it (Print jobs).`;
            }),
          ),
          button('Print jobs', () => showJobs(p).catch(refuse)),
          button('Remove', () =>
            act(async () => {
              await api('DELETE', `/api/v1/printers/${p.id}`);
              await loadPrinters();
              return `Printer ${p.name} is removed.`;
            }),
          ),
        ),
      ),
    ),
  );
  if (state.wall) renderWall();
}

/** @param {Printer} p */
async function showJobs(p) {
  /** @type {Responses['ListPrinterJobs']} */
  const jobs = await api('GET', `/api/v1/printers/${p.id}/jobs?count=50`);
  node('#jobs-card').hidden = false;
  node('#jobs-title').textContent = p.name;
  node('#jobs').replaceChildren(
    ...jobs.map((j) =>
      el(
        'tr',
        {},
        cell('td', j.id, 'num'),
        cell('td', j.orderId ?? 'test', 'num'),
        el('td', {}, el('span.state', { textContent: j.status, dataset: { state: j.status } })),
        cell('td', j.attempts, 'num'),
        cell('td', when(j.createdAt)),
        cell('td', when(j.sentAt)),
        cell('td', j.lastError ?? '–'),
      ),
    ),
  );
  node('#no-jobs').hidden = jobs.length > 0;
}

/** The tab's form. */
export function wirePrinters() {
  form('#new-printer').addEventListener('submit', (e) => {
    e.preventDefault();
    const f = form('#new-printer');
    const body = { name: value(f, 'name'), host: value(f, 'host'), port: Number(value(f, 'port') || 9100) };
    act(async () => {
      /** @type {Responses['CreatePrinter']} */
      const p = await api('POST', '/api/v1/printers', { body });
      f.reset();
      await loadPrinters();
      return `Printer ${p.name} (${p.host}:${p.port}) is registered: name it as a wall's printer on the Walls tab.`;
    });
  });
}
