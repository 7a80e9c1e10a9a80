import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../../../shared/errors/app-error';
import { emSql } from '../../../../shared/db/orm-sql';
import type { ProductDto } from './admin-data.dto';
import { productPage } from './admin-data.queries';

export interface ProductPage {
  items: ProductDto[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

// The cursor is opaque to clients: the last product id of the page, base64url-encoded, so the
// order (by id, which never changes) stays stable while products are added between pages.
export function encodeCursor(lastId: number): string {
  return Buffer.from(`p:${lastId}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const m = /^p:(\d{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(id) || id > 2147483647) {
    const error = { path: 'cursor', message: 'is not a cursor this listing gave out', in: 'query' };
    throw new AppError('validation-failed', "Query parameter 'cursor' is not a cursor this listing gave out; start again without it.", { errors: [error] });
  }
  return id;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * GET /admin/products: the client's products by id, a page at a time. `search` matches, case-insensitively,
 * part of the SKU, the title, the UPC, a shadow SKU or an alias.
 */
export async function listProducts(
  em: EntityManager,
  clientId: number,
  q: { search?: string; limit: number; cursor?: string },
): Promise<ProductPage> {
  const after = q.cursor ? decodeCursor(q.cursor) : 0;
  const search = q.search?.trim() ? `%${likeEscape(q.search.trim())}%` : null;
  const rows = await productPage(emSql(em), { clientId, after, search, limit: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  const num = (v: string | number | null) => (v === null ? null : Number(v));
  return {
    items: page.map((r) => ({
      id: r.id,
      sku: r.sku,
      title: r.title,
      upc: r.upc,
      aliases: r.aliases,
      shadowSkus: r.shadow_skus,
      requiresTransparencyCode: r.requires_transparency_code,
      requiresSerial: r.requires_serial,
      kitComponents: r.kit_components,
      sitePrice: num(r.site_price),
      stopLossPrice: num(r.stop_loss_price),
      channelPrices: r.channel_prices,
    })),
    nextCursor: rows.length > q.limit ? encodeCursor(page[page.length - 1]!.id) : null,
  };
}
