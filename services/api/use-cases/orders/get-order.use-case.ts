import type { EntityManager } from '@mikro-orm/postgresql';
import { emSql } from '../../../../shared/db/orm-sql';
import { notFound } from '../../../../shared/errors/app-error';
import { toOrderRecord, type OrderRecord } from './order-record';
import { orderRecord } from './orders.queries';

/**
 * GET /orders/{id}: one order of the caller's client in any status, with each line's sorted and
 * pending units and the slot holding it (docs/api.md §9, Orders). Another client's order is not found.
 */
export async function getOrder(em: EntityManager, clientId: number, orderId: number, opts: { bins: boolean }): Promise<OrderRecord> {
  const [row] = await orderRecord(emSql(em), { clientId, orderId });
  if (!row) throw notFound(`Order ${orderId}`);
  return toOrderRecord(row, { bins: opts.bins, pending: true });
}
