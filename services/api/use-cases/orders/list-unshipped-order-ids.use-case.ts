import type { EntityManager } from '@mikro-orm/postgresql';
import { UNSHIPPED_ORDER_BY, unshippedOrderWhere, type UnshippedOrderFilter } from './unshipped-order-filter';

/** ListUnshippedOrderIds: the ids ListUnshippedOrders would list, in the same order. */
export async function listUnshippedOrderIds(
  em: EntityManager,
  clientId: number,
  filter: UnshippedOrderFilter & { limit?: number },
): Promise<number[]> {
  const where = unshippedOrderWhere(clientId, filter);
  const params = [...where.params];
  let limit = '';
  if (filter.limit !== undefined) {
    limit = 'limit ?';
    params.push(filter.limit);
  }
  const rows = await em.execute<{ id: number }[]>(
    `select o.id from orders o where ${where.sql} order by ${UNSHIPPED_ORDER_BY} ${limit}`,
    params,
  );
  return rows.map((r) => r.id);
}
