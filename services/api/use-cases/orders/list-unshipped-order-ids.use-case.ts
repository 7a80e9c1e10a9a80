import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../../../shared/config/config';
import { UNSHIPPED_ORDER_BY, unshippedOrderQuery, type UnshippedOrderQuery, unshippedOrderFilter } from './unshipped-order-filter';

/** ListUnshippedOrderIds: the ids ListUnshippedOrders would list, in the same order. */
export async function listUnshippedOrderIds(
  em: EntityManager,
  clientId: number,
  query: UnshippedOrderQuery & { limit?: number },
  config: Pick<AppConfig, 'RECENT_ORDER_DAYS'>,
): Promise<number[]> {
  const { where, limit, params } = unshippedOrderQuery(clientId, unshippedOrderFilter(query, config));
  const rows = await em.execute<{ id: number }[]>(
    `select o.id from orders o where ${where} order by ${UNSHIPPED_ORDER_BY} ${limit}`,
    params,
  );
  return rows.map((r) => r.id);
}
