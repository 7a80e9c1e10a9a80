import type { EntityManager } from '@mikro-orm/postgresql';
import { productRow, type ProductRow } from './admin-data.dto';
import { productSkusByCode } from './admin-data.queries';
import { codeOf, json } from './bulk';
import { Cells, commonIssueCode, runImport, type ImportKind, type ImportReport } from './import';
import { upsertProducts } from './upsert-products.use-case';

const COLUMNS = [
  ['sku', true],
  ['title', true],
  ['upc', false],
  ['aliases', false],
  ['shadowSkus', false],
  ['requiresTransparencyCode', false],
  ['requiresSerial', false],
  ['kitComponents', false],
  ['sitePrice', false],
  ['stopLossPrice', false],
  ['channelPrices', false],
] as const;

/**
 * The products CSV: one row per product. aliases and shadowSkus list their codes separated by `|`;
 * kitComponents lists `SKU:qty` parts (`LID-12:2|MUG-12:2`); channelPrices lists `channelId:price`,
 * or `channelId:price:default` for a channel that uses the site price.
 */
export const productsImport: ImportKind<ProductRow> = {
  what: 'products',
  schema: productRow,
  columns: COLUMNS.map(([name, required]) => ({ name, required })),

  fromCsv(records, columns, problems) {
    return records.map((r) => {
      const cells = new Cells(r, columns, problems);
      const kitComponents = cells.list('kitComponents').map((part) => {
        const at = part.lastIndexOf(':');
        if (at < 0) {
          problems.add(r.row, 'kitComponents', 'invalid-value', `'${part.slice(0, 60)}' is not SKU:qty (LID-12:2)`);
          return { sku: part };
        }
        return { sku: part.slice(0, at), qty: cells.number(part.slice(at + 1), 'kitComponents') };
      });
      const channelPrices = cells.list('channelPrices').map((entry) => {
        const [channel, price, usesDefault, ...rest] = entry.split(':');
        if (price === undefined || rest.length || (usesDefault !== undefined && usesDefault.trim().toLowerCase() !== 'default')) {
          problems.add(r.row, 'channelPrices', 'invalid-value', `'${entry.slice(0, 60)}' is not channelId:price or channelId:price:default (3:12.50)`);
          return {};
        }
        return { channelId: cells.number(channel!.trim(), 'channelPrices'), price: cells.number(price.trim(), 'channelPrices'), useDefaultSitePrice: usesDefault !== undefined };
      });
      return {
        value: {
          sku: cells.text('sku'),
          title: cells.text('title'),
          upc: cells.text('upc'),
          aliases: cells.list('aliases'),
          shadowSkus: cells.list('shadowSkus'),
          requiresTransparencyCode: cells.boolean('requiresTransparencyCode'),
          requiresSerial: cells.boolean('requiresSerial'),
          kitComponents,
          sitePrice: cells.decimal('sitePrice'),
          stopLossPrice: cells.decimal('stopLossPrice'),
          channelPrices,
        },
        locate: (path) => ({ row: r.row, column: typeof path[0] === 'string' ? path[0] : 'sku' }),
      };
    });
  },

  issueCode(path, value) {
    if (path[0] === 'kitComponents' && path.at(-1) === 'qty' && value !== undefined) return 'bad-quantity';
    return commonIssueCode(value);
  },

  async existing(sql, clientId, rows) {
    return (await productSkusByCode(sql, { clientId, codes: json([...new Set(rows.map((r) => codeOf(r.sku)))]) })).length;
  },

  upsert: upsertProducts,
};

/** POST /admin/products/import: the products of a CSV file or a JSON array, checked, then written all or nothing. */
export function importProducts(em: EntityManager, clientId: number, body: string | unknown[], dryRun: boolean): Promise<ImportReport> {
  return runImport(em, clientId, productsImport, body, dryRun);
}
