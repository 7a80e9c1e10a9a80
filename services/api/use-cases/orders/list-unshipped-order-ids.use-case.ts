import type { EntityManager } from '@mikro-orm/postgresql';
import { UNSHIPPED_ORDER_BY, unshippedOrderQuery, type UnshippedOrderFilter } from './unshipped-order-filter';

/** ListUnshippedOrderIds: the ids ListUnshippedOrders would list, in the same order. */
export async function listUnshippedOrderIds(
  em: EntityManager,
  clientId: number,
  filter: UnshippedOrderFilter & { limit?: number },
): Promise<number[]> {
  const { where, limit, params } = unshippedOrderQuery(clientId, filter);
  const rows = await em.execute<{ id: number }[]>(
    `select o.id from orders o where ${where} order by ${UNSHIPPED_ORDER_BY} ${limit}`,
    params,
  );
  return rows.map((r) => r.id);
}
