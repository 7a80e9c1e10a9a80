import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../../../shared/config/config';
import { emSql } from '../../../../shared/db/orm-sql';
import { toOrderRecord, type OrderRecord } from './order-record';
import { unshippedOrders, unshippedParams, unshippedShape } from './orders.queries';
import { type UnshippedOrderQuery, unshippedOrderFilter } from './unshipped-order-filter';

/** ListUnshippedOrders: one statement for every matching order and its lines. */
export async function listUnshippedOrders(
  em: EntityManager,
  clientId: number,
  query: UnshippedOrderQuery & { bins: boolean; limit?: number },
  config: Pick<AppConfig, 'RECENT_ORDER_DAYS'>,
): Promise<OrderRecord[]> {
  const filter = unshippedOrderFilter(query, config);
  const rows = await unshippedOrders(emSql(em), unshippedShape(filter), unshippedParams(clientId, filter));
  return rows.map((r) => toOrderRecord(r, { bins: filter.bins }));
}
