import { z } from 'zod';
import { IMPORT_BODY_LIMIT, formatBytes } from '../http/body';
import { defineRoute, type RouteDef } from '../http/route';
import { queryBool } from '../http/validation';
import { MAX_IMPORT_ROWS, MAX_REPORTED_PROBLEMS, type ImportReport } from '../use-cases/admin-data/import';
import { importOrders, ordersImport } from '../use-cases/admin-data/import-orders.use-case';
import { importPicklists, picklistsImport } from '../use-cases/admin-data/import-picklists.use-case';
import { importProducts, productsImport } from '../use-cases/admin-data/import-products.use-case';
import type { EntityManager } from '@mikro-orm/postgresql';

const tags = ['Admin: data loading'];

const importQuery = z.object({
  dryRun: queryBool.default(false).describe('true: check the file and answer the report; nothing is written.'),
});

const reportDto = z.object({
  dryRun: z.boolean(),
  imported: z.boolean().describe('Whether the rows were written: never in a dry run'),
  rowsRead: z.number().int().describe("Data rows read: a CSV's records after its header, or the JSON array's elements"),
  records: z.number().int().describe('The orders, products or picklists those rows make'),
  created: z.number().int().describe('Records not stored yet: created by the import'),
  updated: z.number().int().describe('Records stored already: replaced whole by the import'),
  problemCount: z.number().int(),
  problems: z
    .array(
      z.object({
        row: z.number().int().describe("CSV: the row as a spreadsheet numbers it (the header is 1). JSON: the element's index (from 0)"),
        column: z.string().describe('CSV: the column name. JSON: the field within the element (items[0].qty). Empty: the whole row or file'),
        code: z.string().describe('unknown-warehouse, unknown-sku, bad-date, duplicate-id, bad-quantity, order-sorting, ... (docs/api.md §3)'),
        detail: z.string(),
      }),
    )
    .describe(`Every problem, by row (at most ${MAX_REPORTED_PROBLEMS})`),
});

/** The JSON form: the PUT loader's array, each element checked on its own so the report names each bad one. */
const jsonRows = (put: string) =>
  z.array(z.unknown()).max(MAX_IMPORT_ROWS).describe(`The rows of ${put}, up to ${MAX_IMPORT_ROWS.toLocaleString('en-US')}`);

const importNote =
  `A text/csv file (UTF-8, a header row, RFC 4180) or the JSON array of the PUT loader, up to ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows and ` +
  `${formatBytes(IMPORT_BODY_LIMIT)} (more: 413 before the body is read). Checked as the PUT loader checks its rows, then written in one transaction: ` +
  'all or nothing. With dryRun=true the answer is the report and nothing is written; without it, an import with a problem is refused ' +
  '(400 validation-failed, the same report in `report`) and changes nothing. A file separated by semicolons or tabs is refused (wrong-delimiter).';

function importRoute(
  resource: 'orders' | 'products' | 'picklists',
  operationId: string,
  columns: readonly { name: string; required: boolean }[],
  about: string,
  run: (em: EntityManager, clientId: number, body: string | unknown[], dryRun: boolean) => Promise<ImportReport>,
): RouteDef {
  const cols = columns.map((c) => (c.required ? c.name : `${c.name}?`)).join(',');
  return defineRoute({
    method: 'post',
    path: `/admin/${resource}/import`,
    operationId,
    summary: `Import ${resource} from a CSV file or a JSON array, or check the file with dryRun`,
    action: `import ${resource}`,
    description: `${importNote} CSV columns (any order, any case; ? optional): ${cols}. ${about}`,
    tags,
    access: ['Admin'],
    query: importQuery,
    body: jsonRows(`PUT /admin/${resource}`),
    acceptsCsv: true,
    bodyLimit: IMPORT_BODY_LIMIT,
    response: reportDto,
    handler: ({ em, auth, body, query }) => run(em, auth.clientId, body as string | unknown[], query.dryRun),
  });
}

export const adminImportRoutes: RouteDef[] = [
  importRoute(
    'orders',
    'ImportOrders',
    ordersImport.columns,
    "One row per order line, the order's columns repeated on each row and its rows one after another; bins separated by |.",
    importOrders,
  ),
  importRoute(
    'products',
    'ImportProducts',
    productsImport.columns,
    'One row per product; aliases and shadowSkus separated by |; kitComponents as SKU:qty|SKU:qty; channelPrices as channelId:price or channelId:price:default, separated by |.',
    importProducts,
  ),
  importRoute(
    'picklists',
    'ImportPicklists',
    picklistsImport.columns,
    "One row per order of a picklist, its rows one after another; a picklist without orders: one row with orderId empty.",
    importPicklists,
  ),
];
