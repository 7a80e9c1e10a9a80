import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../../../shared/config/config';
import { unshippedOrderWhere, type UnshippedOrderQuery, unshippedOrderFilter } from './unshipped-order-filter';

export interface UnshippedProductSummary {
  sku: string;
  /** null when the sku is not in the client's catalog. */
  title: string | null;
  unitsToSort: number;
  orders: number;
  bins?: string[];
}

interface Row {
  sku: string;
  title: string | null;
  units_to_sort: number;
  orders: number;
  bin_lists: string[][] | null;
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
  const where = unshippedOrderWhere(clientId, filter);
  const rows = await em.execute<Row[]>(
    `select i.sku, p.title,
       sum(i.qty - i.confirmed_qty)::int as units_to_sort,
       (count(*) filter (where i.qty > i.confirmed_qty))::int as orders,
       json_agg(i.bins) filter (where i.qty > i.confirmed_qty) as bin_lists
     from orders o
     join order_item i on i.client_id = o.client_id and i.order_id = o.id
     left join product p on p.client_id = o.client_id and p.sku = i.sku
     where ${where.sql}
     group by i.sku, p.title
     ${filter.empty ? '' : 'having sum(i.qty - i.confirmed_qty) > 0'}
     order by units_to_sort desc, i.sku asc`,
    where.params,
  );
  return rows.map((r) => ({
    sku: r.sku,
    title: r.title,
    unitsToSort: r.units_to_sort,
    orders: r.orders,
    ...(filter.bins ? { bins: [...new Set((r.bin_lists ?? []).flat())].sort() } : {}),
  }));
}
