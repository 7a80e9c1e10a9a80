import type { EntityManager } from '@mikro-orm/postgresql';
import type { PicklistDto, PicklistRow } from './admin-data.dto';
import { emTransactionSql } from '../../../../shared/db/orm-sql';
import { RowErrors, type BulkOptions, flagDuplicates, json, type BulkResult } from './bulk';
import { deletePicklistOrders, insertPicklistOrders, knownOrders, upsertPicklistRows } from './admin-data.queries';

/**
 * PUT /admin/picklists: creates or replaces picklists by id, all-or-nothing. orderIds replaces the
 * picklist's earlier list (a repeated id counts once). Closing a picklist does not end the sessions
 * connected with it; it only refuses new ones (422 picklist-not-open).
 */
export async function upsertPicklists(em: EntityManager, clientId: number, rows: PicklistRow[], opts: BulkOptions = {}): Promise<BulkResult<PicklistDto>> {
  const errors = new RowErrors();
  flagDuplicates(rows, (r) => r.id, errors, 'id', 'picklist id');
  if (rows.length === 0) return { upserted: 0, created: 0, updated: 0, items: [] };
  const lists = rows.map((r) => ({ id: r.id, status: r.status, orderIds: [...new Set(r.orderIds)] }));

  return em.transactional(async (txEm) => {
    const tx = emTransactionSql(txEm, false, opts.queryTimeoutMs);
    const known = await knownOrders(tx, { clientId, ids: json([...new Set(lists.flatMap((l) => l.orderIds))]) });
    const orderIds = new Set(known.map((k) => k.id));
    rows.forEach((r, i) => {
      r.orderIds.forEach((id, j) => {
        if (!orderIds.has(id)) errors.add(i, `orderIds[${j}]`, `order ${id} does not exist; load it first with PUT /admin/orders`, 'unknown-order');
      });
    });
    errors.throwIfAny('picklists', rows.length);

    const written = await upsertPicklistRows(tx, { clientId, rows: json(lists.map((l) => ({ id: l.id, status: l.status }))) });
    await deletePicklistOrders(tx, { clientId, picklistIds: json(lists.map((l) => l.id)) });
    const members = lists.flatMap((l) => l.orderIds.map((orderId) => ({ picklist_id: l.id, order_id: orderId })));
    if (members.length) {
      await insertPicklistOrders(tx, { clientId, rows: json(members) });
    }
    const created = written.filter((w) => w.inserted).length;
    return { upserted: rows.length, created, updated: rows.length - created, items: lists };
  });
}
