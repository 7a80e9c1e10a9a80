import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../../../shared/config/config';
import { emSql } from '../../../../shared/db/orm-sql';
import { unshippedOrderIds, unshippedParams, unshippedShape } from './orders.queries';
import { type UnshippedOrderQuery, unshippedOrderFilter } from './unshipped-order-filter';

/** ListUnshippedOrderIds: the ids ListUnshippedOrders would list, in the same order. */
export async function listUnshippedOrderIds(
  em: EntityManager,
  clientId: number,
  query: UnshippedOrderQuery & { limit?: number },
  config: Pick<AppConfig, 'RECENT_ORDER_DAYS'>,
): Promise<number[]> {
  const filter = unshippedOrderFilter(query, config);
  const rows = await unshippedOrderIds(emSql(em), unshippedShape(filter), unshippedParams(clientId, filter));
  return rows.map((r) => r.id);
}
