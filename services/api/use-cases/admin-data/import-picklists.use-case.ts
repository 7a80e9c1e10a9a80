import type { EntityManager } from '@mikro-orm/postgresql';
import { picklistRow, type PicklistRow } from './admin-data.dto';
import { json } from './bulk';
import { Cells, commonIssueCode, groupsById, runImport, type Candidate, type ImportKind, type ImportReport } from './import';
import { knownPicklists } from './import.queries';
import { upsertPicklists } from './upsert-picklists.use-case';

/**
 * The picklists CSV: one row per order of a picklist (`picklistId,status,orderId`), a picklist's rows
 * following one another; a picklist without orders is one row with orderId empty. The same picklist
 * id again after another picklist's rows is a duplicate; a status that differs between its rows, a conflict.
 */
export const picklistsImport: ImportKind<PicklistRow> = {
  what: 'picklists',
  schema: picklistRow,
  columns: [
    { name: 'picklistId', required: true },
    { name: 'status', required: true },
    { name: 'orderId', required: true },
  ],

  fromCsv(records, columns, problems) {
    const candidates: Candidate[] = [];
    const groups = groupsById(records, columns, problems, 'picklistId', {
      missing: 'The row has no picklistId; each row is an order of the picklist it names',
      duplicate: (id, first, last) => `Picklist ${id} is in rows ${first}-${last} already; a picklist's rows follow one another, each picklist once`,
    });
    for (const { head, rows: group } of groups) {
      const members: { id: number | string | undefined; row: number }[] = [];
      for (const r of group) {
        const cells = new Cells(r, columns, problems);
        if ((cells.text('status') ?? '') !== (head.text('status') ?? '')) {
          problems.add(r.row, 'status', 'conflicting-value', `'${cells.text('status') ?? ''}' differs from row ${head.row} of the same picklist ('${head.text('status') ?? ''}')`);
        }
        const orderId = cells.integer('orderId');
        if (orderId !== undefined) members.push({ id: orderId, row: r.row });
      }
      candidates.push({
        value: { id: head.integer('picklistId'), status: head.text('status'), orderIds: members.map((m) => m.id) },
        locate(path) {
          if (path[0] === 'orderIds') return { row: (typeof path[1] === 'number' ? members[path[1]] : undefined)?.row ?? head.row, column: 'orderId' };
          return { row: head.row, column: path[0] === 'status' ? 'status' : 'picklistId' };
        },
      });
    }
    return candidates;
  },

  issueCode: (_path, value) => commonIssueCode(value),

  async existing(sql, clientId, rows) {
    return (await knownPicklists(sql, { clientId, ids: json([...new Set(rows.map((r) => r.id))]) })).length;
  },

  upsert: upsertPicklists,
};

/** POST /admin/picklists/import: the picklists of a CSV file or a JSON array, checked, then written all or nothing. */
export function importPicklists(em: EntityManager, clientId: number, body: string | unknown[], dryRun: boolean): Promise<ImportReport> {
  return runImport(em, clientId, picklistsImport, body, dryRun);
}
