import type { EntityManager } from '@mikro-orm/postgresql';
import { PRODUCT_CODE_KINDS } from '../../../../shared/db/entities/product.entity';
import type { ProductDto, ProductRow } from './admin-data.dto';
import { RowErrors, codeOf, flagDuplicates, json, sql, type BulkResult } from './bulk';
import { moveWallVersions } from '../walls/wall-versions';

/**
 * PUT /admin/products: creates or replaces products by SKU, all-or-nothing, and rewrites their rows
 * in product_code (every code upper-cased, kind 1 sku, 2 upc, 3 shadow sku, 4 alias), the table the
 * scan path resolves a barcode with in one index lookup.
 */
export async function upsertProducts(em: EntityManager, clientId: number, rows: ProductRow[]): Promise<BulkResult<ProductDto>> {
  const errors = new RowErrors();
  // Scans match codes in any case, so 'abc' and 'ABC' would be one barcode for two products.
  flagDuplicates(rows, (r) => codeOf(r.sku), errors, 'sku', 'sku (compared case-insensitively)');
  rows.forEach((r, i) => {
    const channels = new Set<number>();
    r.channelPrices.forEach((c, j) => {
      if (channels.has(c.channelId)) errors.add(i, `channelPrices[${j}].channelId`, `channel ${c.channelId} is listed twice`);
      channels.add(c.channelId);
    });
    const parts = new Set<string>();
    r.kitComponents.forEach((k, j) => {
      const kc = codeOf(k.sku);
      if (kc === codeOf(r.sku)) errors.add(i, `kitComponents[${j}].sku`, 'a kit cannot contain itself');
      else if (parts.has(kc)) errors.add(i, `kitComponents[${j}].sku`, `component '${k.sku}' is listed twice; give its total qty once`);
      parts.add(kc);
    });
  });
  if (rows.length === 0) {
    errors.throwIfAny('products', rows.length);
    return { upserted: 0, created: 0, updated: 0, items: [] };
  }

  return em.transactional(async (tx) => {
    // A stored product whose SKU differs from a requested one only in case is a conflict, not a new product.
    const stored = await sql<{ code: string; sku: string }>(
      tx,
      `select pc.code, p.sku from product_code pc join product p on p.id = pc.product_id
       where pc.client_id = ? and pc.kind = ${PRODUCT_CODE_KINDS.sku}
         and pc.code in (select value from jsonb_array_elements_text(?::jsonb))`,
      [clientId, json(rows.map((r) => codeOf(r.sku)))],
    );
    const storedSku = new Map(stored.map((s) => [s.code, s.sku]));
    rows.forEach((r, i) => {
      const existing = storedSku.get(codeOf(r.sku));
      if (existing !== undefined && existing !== r.sku) {
        errors.add(i, 'sku', `product '${existing}' exists already; SKUs are compared case-insensitively, send it as '${existing}'`);
      }
    });
    errors.throwIfAny('products', rows.length);

    const written = await sql<{ id: number; sku: string; inserted: boolean }>(
      tx,
      `insert into product (client_id, sku, title, upc, aliases, shadow_skus, requires_transparency_code, kit_components,
                            site_price, stop_loss_price, channel_prices, updated_at)
       select ?, x.sku, x.title, x.upc, x.aliases, x.shadow_skus, x.requires_transparency_code, x.kit_components,
              x.site_price, x.stop_loss_price, x.channel_prices, now()
       from jsonb_to_recordset(?::jsonb) as x(sku text, title text, upc text, aliases text[], shadow_skus text[],
            requires_transparency_code boolean, kit_components jsonb, site_price numeric, stop_loss_price numeric, channel_prices jsonb)
       on conflict (client_id, sku) do update set
         title = excluded.title, upc = excluded.upc, aliases = excluded.aliases, shadow_skus = excluded.shadow_skus,
         requires_transparency_code = excluded.requires_transparency_code, kit_components = excluded.kit_components,
         site_price = excluded.site_price, stop_loss_price = excluded.stop_loss_price,
         channel_prices = excluded.channel_prices, updated_at = now()
       returning id, sku, (xmax = 0) as inserted`,
      [
        clientId,
        json(
          rows.map((r) => ({
            sku: r.sku,
            title: r.title,
            upc: r.upc,
            aliases: r.aliases,
            shadow_skus: r.shadowSkus,
            requires_transparency_code: r.requiresTransparencyCode,
            kit_components: r.kitComponents,
            site_price: r.sitePrice,
            stop_loss_price: r.stopLossPrice,
            channel_prices: r.channelPrices,
          })),
        ),
      ],
    );
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
    await sql(
      tx,
      `delete from product_code where client_id = ?
         and product_id in (select value::int from jsonb_array_elements_text(?::jsonb))`,
      [clientId, json(written.map((w) => w.id))],
    );
    await sql(
      tx,
      `insert into product_code (client_id, code, kind, product_id)
       select ?, x.code, x.kind, x.product_id from jsonb_to_recordset(?::jsonb) as x(code text, kind smallint, product_id int)`,
      [clientId, json(codes)],
    );

    // Every wall of the client may hold a barcode of these products in its cache.
    await moveWallVersions(tx, clientId, 'every-wall');
    const created = written.filter((w) => w.inserted).length;
    return {
      upserted: rows.length,
      created,
      updated: rows.length - created,
      items: rows.map((r) => ({ id: idBySku.get(r.sku)!, ...r })),
    };
  });
}
