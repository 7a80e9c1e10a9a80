import type { EntityManager } from '@mikro-orm/postgresql';
import { PRODUCT_CODE_KINDS } from '../../../../shared/db/entities/product.entity';
import type { ProductDto, ProductRow } from './admin-data.dto';
import { emTransactionSql } from '../../../../shared/db/orm-sql';
import { RowErrors, type BulkOptions, codeOf, flagDuplicates, json, type BulkResult } from './bulk';
import { deleteProductCodes, insertProductCodes, productSkusByCode, upsertProductRows } from './admin-data.queries';

/**
 * PUT /admin/products: creates or replaces products by SKU, all-or-nothing, and rewrites their rows
 * in product_code (every code upper-cased, kind 1 sku, 2 upc, 3 shadow sku, 4 alias), the table the
 * scan path resolves a barcode with in one index lookup.
 */
export async function upsertProducts(em: EntityManager, clientId: number, rows: ProductRow[], opts: BulkOptions = {}): Promise<BulkResult<ProductDto>> {
  const errors = new RowErrors();
  // Scans match codes in any case, so 'abc' and 'ABC' would be one barcode for two products.
  flagDuplicates(rows, (r) => codeOf(r.sku), errors, 'sku', 'sku (compared case-insensitively)');
  rows.forEach((r, i) => {
    const channels = new Set<number>();
    r.channelPrices.forEach((c, j) => {
      if (channels.has(c.channelId)) errors.add(i, `channelPrices[${j}].channelId`, `channel ${c.channelId} is listed twice`, 'duplicate-value');
      channels.add(c.channelId);
    });
    const parts = new Set<string>();
    r.kitComponents.forEach((k, j) => {
      const kc = codeOf(k.sku);
      if (kc === codeOf(r.sku)) errors.add(i, `kitComponents[${j}].sku`, 'a kit cannot contain itself');
      else if (parts.has(kc)) errors.add(i, `kitComponents[${j}].sku`, `component '${k.sku}' is listed twice; give its total qty once`, 'duplicate-value');
      parts.add(kc);
    });
  });
  if (rows.length === 0) {
    errors.throwIfAny('products', rows.length);
    return { upserted: 0, created: 0, updated: 0, items: [] };
  }

  return em.transactional(async (txEm) => {
    const tx = emTransactionSql(txEm, false, opts.queryTimeoutMs);
    // A stored product whose SKU differs from a requested one only in case is a conflict, not a new product.
    const stored = await productSkusByCode(tx, { clientId, codes: json(rows.map((r) => codeOf(r.sku))) });
    const storedSku = new Map(stored.map((s) => [s.code, s.sku]));
    rows.forEach((r, i) => {
      const existing = storedSku.get(codeOf(r.sku));
      if (existing !== undefined && existing !== r.sku) {
        errors.add(i, 'sku', `product '${existing}' exists already; SKUs are compared case-insensitively, send it as '${existing}'`, 'sku-case-conflict');
      }
    });
    errors.throwIfAny('products', rows.length);

    const written = await upsertProductRows(tx, {
      clientId,
      rows: json(
        rows.map((r) => ({
          sku: r.sku,
          title: r.title,
          upc: r.upc,
          aliases: r.aliases,
          shadow_skus: r.shadowSkus,
          requires_transparency_code: r.requiresTransparencyCode,
          requires_serial: r.requiresSerial,
          kit_components: r.kitComponents,
          site_price: r.sitePrice,
          stop_loss_price: r.stopLossPrice,
          channel_prices: r.channelPrices,
        })),
      ),
    });
    const idBySku = new Map(written.map((w) => [w.sku, w.id]));

    const codes: { code: string; kind: number; product_id: number }[] = [];
    for (const r of rows) {
      const productId = idBySku.get(r.sku)!;
      const seen = new Set<string>();
      const add = (value: string | null, kind: number) => {
        if (!value) return;
        const c = codeOf(value);
        if (!c || seen.has(`${kind}:${c}`)) return;
        seen.add(`${kind}:${c}`);
        codes.push({ code: c, kind, product_id: productId });
      };
      add(r.sku, PRODUCT_CODE_KINDS.sku);
      add(r.upc, PRODUCT_CODE_KINDS.upc);
      r.shadowSkus.forEach((s) => add(s, PRODUCT_CODE_KINDS.shadowSku));
      r.aliases.forEach((a) => add(a, PRODUCT_CODE_KINDS.alias));
    }
    await deleteProductCodes(tx, { clientId, productIds: json(written.map((w) => w.id)) });
    await insertProductCodes(tx, { clientId, rows: json(codes) });

    const created = written.filter((w) => w.inserted).length;
    return {
      upserted: rows.length,
      created,
      updated: rows.length - created,
      items: rows.map((r) => ({ id: idBySku.get(r.sku)!, ...r })),
    };
  });
}
