import type { EntityManager } from '@mikro-orm/postgresql';
import { orderRow, type OrderRow } from './admin-data.dto';
import { knownOrders } from './admin-data.queries';
import { json } from './bulk';
import { Cells, commonIssueCode, groupsById, runImport, type Candidate, type ImportKind, type ImportReport } from './import';
import { upsertOrders } from './upsert-orders.use-case';

/** An order's own columns, repeated on each of its rows, and where they go in the PUT loader's row. */
const ORDER_COLUMNS = [
  ['orderId', 'id'],
  ['warehouseId', 'warehouseId'],
  ['orderDate', 'orderDate'],
  ['priority', 'priority'],
  ['isDropShip', 'isDropShip'],
  ['shipToName', 'shipTo.name'],
  ['shipToStreet1', 'shipTo.street1'],
  ['shipToStreet2', 'shipTo.street2'],
  ['shipToCity', 'shipTo.city'],
  ['shipToState', 'shipTo.state'],
  ['shipToPostalCode', 'shipTo.postalCode'],
  ['shipToCountry', 'shipTo.country'],
] as const;
const LINE_COLUMNS = ['sku', 'qty', 'bins'] as const;
const OPTIONAL = new Set(['priority', 'isDropShip', 'shipToStreet2', 'shipToState', 'bins']);
const COLUMN_OF_FIELD = new Map<string, string>(ORDER_COLUMNS.map(([column, field]) => [field, column]));

/**
 * The orders CSV: one row per order line, the order's columns repeated on each; an order's rows follow
 * one another. The same order id again after another order's rows is a duplicate; an order column that
 * differs between the rows of one order is a conflict.
 */
export const ordersImport: ImportKind<OrderRow> = {
  what: 'orders',
  schema: orderRow,
  columns: [...ORDER_COLUMNS.map(([c]) => c), ...LINE_COLUMNS].map((name) => ({ name, required: !OPTIONAL.has(name) })),

  fromCsv(records, columns, problems) {
    const candidates: Candidate[] = [];
    const groups = groupsById(records, columns, problems, 'orderId', {
      missing: 'The row has no orderId; each row is a line of the order it names',
      duplicate: (id, first, last) => `Order ${id} is in rows ${first}-${last} already; an order's lines are rows that follow one another, each order once`,
    });
    for (const { head, rows: group } of groups) {
      // The order's columns as its first row has them; the others must say the same.
      for (const r of group.slice(1)) {
        const cells = new Cells(r, columns, problems);
        for (const [column] of ORDER_COLUMNS) {
          if ((cells.text(column) ?? '') !== (head.text(column) ?? '')) {
            problems.add(
              r.row,
              column,
              'conflicting-value',
              `'${cells.text(column) ?? ''}' differs from row ${head.row} of the same order ('${head.text(column) ?? ''}'); every row of an order repeats its order columns`,
            );
          }
        }
      }
      const lines = group.map((r) => {
        const cells = new Cells(r, columns, problems);
        const bins = cells.list('bins');
        return { sku: cells.text('sku'), qty: cells.integer('qty', 'bad-quantity'), ...(bins.length ? { bins } : {}) };
      });
      candidates.push({
        value: {
          id: head.integer('orderId'),
          warehouseId: head.integer('warehouseId'),
          orderDate: head.text('orderDate'),
          priority: head.text('priority'),
          isDropShip: head.boolean('isDropShip'),
          shipTo: {
            name: head.text('shipToName'),
            street1: head.text('shipToStreet1'),
            street2: head.text('shipToStreet2'),
            city: head.text('shipToCity'),
            state: head.text('shipToState'),
            postalCode: head.text('shipToPostalCode'),
            country: head.text('shipToCountry'),
          },
          items: lines,
        },
        locate(path) {
          if (path[0] === 'items') {
            const line = typeof path[1] === 'number' ? group[path[1]] : undefined;
            const field = path[2] === 'bin' ? 'bins' : typeof path[2] === 'string' ? path[2] : 'sku';
            return { row: (line ?? group[0]!).row, column: field };
          }
          const field = path.slice(0, 2).join('.');
          return { row: group[0]!.row, column: COLUMN_OF_FIELD.get(field) ?? COLUMN_OF_FIELD.get(String(path[0])) ?? 'orderId' };
        },
      });
    }
    return candidates;
  },

  issueCode(path, value) {
    const last = path.at(-1);
    if (path[0] === 'items' && last === 'qty' && value !== undefined) return 'bad-quantity';
    if (path[0] === 'orderDate' && value !== undefined) return 'bad-date';
    return commonIssueCode(value);
  },

  async existing(sql, clientId, rows) {
    return (await knownOrders(sql, { clientId, ids: json([...new Set(rows.map((r) => r.id))]) })).length;
  },

  upsert: upsertOrders,
};

/** POST /admin/orders/import: the orders of a CSV file or a JSON array, checked, then written all or nothing. */
export function importOrders(em: EntityManager, clientId: number, body: string | unknown[], dryRun: boolean): Promise<ImportReport> {
  return runImport(em, clientId, ordersImport, body, dryRun);
}
