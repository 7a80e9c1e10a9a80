import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../../../shared/config/config';
import { emSql } from '../../../../shared/db/orm-sql';
import { unshippedParams, unshippedProducts, unshippedShape } from './orders.queries';
import { type UnshippedOrderQuery, unshippedOrderFilter } from './unshipped-order-filter';

export interface UnshippedProductSummary {
  sku: string;
  /** null when the sku is not in the client's catalog. */
  title: string | null;
  unitsToSort: number;
  orders: number;
  bins?: string[];
}

/**
 * ListUnshippedOrdersProductsSummary: per sku over the matching orders, the units still to sort
 * (qty - confirmed) and how many orders still need it. Skus with nothing left are listed only with
 * `empty`. Most units first, then sku. With `bins`, the distinct bins of the lines that still need units.
 */
export async function listUnshippedProducts(
  em: EntityManager,
  clientId: number,
  query: UnshippedOrderQuery & { bins: boolean },
  config: Pick<AppConfig, 'RECENT_ORDER_DAYS'>,
): Promise<UnshippedProductSummary[]> {
  const filter = unshippedOrderFilter(query, config);
  const rows = await unshippedProducts(emSql(em), unshippedShape(filter), unshippedParams(clientId, filter));
  return rows.map((r) => ({
    sku: r.sku,
    title: r.title,
    unitsToSort: r.units_to_sort,
    orders: r.orders,
    ...(filter.bins ? { bins: [...new Set((r.bin_lists ?? []).flat())].sort() } : {}),
  }));
}
