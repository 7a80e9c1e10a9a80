// @ts-check
// The console's Imports tab (Admins): a file of orders, products or picklists checked by a dry run as
// soon as it is chosen (the report and its problems), then imported.
import { el, Problem, token } from './common.js';
import { cell, field, form, node, refuse, say, value } from './console-ui.js';

/** @typedef {import('./types').Responses} Responses */
/** The three imports answer the same report: a field the page reads must be in each. */
/** @typedef {Responses['ImportOrders' | 'ImportProducts' | 'ImportPicklists']} ImportReport */
/** An import refused for its problems: the problem+json answer (400) carries the same report. */
/** @typedef {{ code?: string, title?: string, detail?: string, report?: ImportReport }} ImportRefusal */

/** The file the last check found no problem in: what Import sends. */
/** @type {{ file: File, kind: string, report: ImportReport } | null} */
let ready = null;

/**
 * Sends the chosen file to an import, as CSV or as the JSON array, and answers the report whether the
 * service took the file (200) or refused it for its problems (400 with the report).
 * @param {File} file @param {string} kind @param {boolean} dryRun @returns {Promise<{ ok: boolean, report: ImportReport }>}
 */
async function sendImport(file, kind, dryRun) {
  const json = /\.json$/i.test(file.name) || file.type === 'application/json';
  let res;
  try {
    res = await fetch(`/api/v1/admin/${kind}/import${dryRun ? '?dryRun=true' : ''}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token.get()}`, 'Content-Type': json ? 'application/json' : 'text/csv' },
      body: await file.text(),
    });
  } catch {
    throw new Problem(0, { title: 'No connection', detail: 'The service cannot be reached. Check the network and try again.' });
  }
  /** @type {unknown} */
  const data = await res.json().catch(() => ({}));
  if (res.ok) return { ok: true, report: /** @type {ImportReport} */ (data) };
  const refusal = /** @type {ImportRefusal} */ (data || {});
  if (refusal.report) return { ok: false, report: refusal.report };
  throw new Problem(res.status, refusal);
}

/** @param {ImportReport} report @param {string} kind */
function renderReport(report, kind) {
  node('#import-report').hidden = false;
  const what = `${report.records} ${kind} from ${report.rowsRead} row${report.rowsRead === 1 ? '' : 's'} (${report.created} new, ${report.updated} to replace)`;
  node('#import-summary').textContent = report.problemCount
    ? `${report.problemCount} problem${report.problemCount === 1 ? '' : 's'}: nothing can be imported until the file is fixed`
    : report.imported
      ? `Imported ${what}`
      : `Ready to import ${what}`;
  const table = node('#problems');
  table.hidden = report.problems.length === 0;
  node('#problems tbody').replaceChildren(
    ...report.problems.map((p) => el('tr', {}, cell('td', p.row, 'num'), cell('td', p.column || '–', 'mono'), cell('td', p.code, 'mono'), cell('td', p.detail))),
  );
}

async function checkImport() {
  const f = form('#import');
  const file = field(f, 'file').files?.[0];
  const kind = value(f, 'kind');
  const run = /** @type {HTMLButtonElement} */ (node('#import-run'));
  run.disabled = true;
  ready = null;
  if (!file) return;
  const { report } = await sendImport(file, kind, true);
  renderReport(report, kind);
  if (report.problemCount === 0) {
    ready = { file, kind, report };
    run.disabled = false;
    say(`${file.name} has no problem: ${report.records} ${kind} ready to import.`);
  } else {
    say(`${file.name} has ${report.problemCount} problem${report.problemCount === 1 ? '' : 's'} (listed below): fix the file and choose it again.`, 'bad');
  }
}

async function runImport() {
  const checked = ready;
  if (!checked) return;
  /** @type {HTMLButtonElement} */ (node('#import-run')).disabled = true;
  const { ok, report } = await sendImport(checked.file, checked.kind, false);
  renderReport(report, checked.kind);
  ready = null;
  if (ok) say(`Imported ${checked.file.name}: ${report.records} ${checked.kind} (${report.created} new, ${report.updated} replaced).`);
  else say(`${checked.file.name} was refused (${report.problemCount} problem${report.problemCount === 1 ? '' : 's'}, listed below): nothing was imported.`, 'bad');
}

/** The tab's form: a file chosen (or another kind) is checked at once. */
export function wireImports() {
  field(form('#import'), 'file').addEventListener('change', () => checkImport().catch(refuse));
  /** @type {HTMLSelectElement} */ (form('#import').elements.namedItem('kind')).addEventListener('change', () => checkImport().catch(refuse));
  node('#import-check').addEventListener('click', () => checkImport().catch(refuse));

  form('#import').addEventListener('submit', (e) => {
    e.preventDefault();
    runImport().catch(refuse);
  });
}
