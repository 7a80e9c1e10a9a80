import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../../../shared/config/config';
import { ORDER_RECORD_COLUMNS, ORDER_SLOT_JOIN, toOrderRecord, type OrderRecord, type OrderRow } from './order-record';
import { UNSHIPPED_ORDER_BY, unshippedOrderQuery, type UnshippedOrderQuery, unshippedOrderFilter } from './unshipped-order-filter';

/** ListUnshippedOrders: one statement for every matching order and its lines. */
export async function listUnshippedOrders(
  em: EntityManager,
  clientId: number,
  query: UnshippedOrderQuery & { bins: boolean; limit?: number },
  config: Pick<AppConfig, 'RECENT_ORDER_DAYS'>,
): Promise<OrderRecord[]> {
  const filter = unshippedOrderFilter(query, config);
  const { where, limit, params } = unshippedOrderQuery(clientId, filter);
  const rows = await em.execute<OrderRow[]>(
    `select ${ORDER_RECORD_COLUMNS}
     from orders o
     ${ORDER_SLOT_JOIN}
     where ${where}
     order by ${UNSHIPPED_ORDER_BY}
     ${limit}`,
    params,
  );
  return rows.map((r) => toOrderRecord(r, { bins: filter.bins }));
}
