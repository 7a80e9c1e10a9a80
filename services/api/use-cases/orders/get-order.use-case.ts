import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../../../shared/errors/app-error';
import { ORDER_RECORD_COLUMNS, ORDER_SLOT_JOIN, toOrderRecord, type OrderRecord, type OrderRow } from './order-record';

/**
 * GET /orders/{id}: one order of the caller's client in any status, with each line's sorted and
 * pending units and the slot holding it (docs/api.md §9, Orders). Another client's order is not found.
 */
export async function getOrder(em: EntityManager, clientId: number, orderId: number, opts: { bins: boolean }): Promise<OrderRecord> {
  const [row] = await em.execute<OrderRow[]>(
    `select ${ORDER_RECORD_COLUMNS} from orders o ${ORDER_SLOT_JOIN} where o.client_id = ? and o.id = ?`,
    [clientId, orderId],
  );
  if (!row) throw notFound(`Order ${orderId}`);
  return toOrderRecord(row, { bins: opts.bins, pending: true });
}
