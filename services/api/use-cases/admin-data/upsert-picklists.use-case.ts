import type { EntityManager } from '@mikro-orm/postgresql';
import type { PicklistDto, PicklistRow } from './admin-data.dto';
import { RowErrors, flagDuplicates, json, sql, type BulkResult } from './bulk';
import { moveWallVersions } from '../walls/wall-versions';

/**
 * PUT /admin/picklists: creates or replaces picklists by id, all-or-nothing. orderIds replaces the
 * picklist's earlier list (a repeated id counts once). Closing a picklist does not end the sessions
 * connected with it; it only refuses new ones (422 picklist-not-open).
 */
export async function upsertPicklists(em: EntityManager, clientId: number, rows: PicklistRow[]): Promise<BulkResult<PicklistDto>> {
  const errors = new RowErrors();
  flagDuplicates(rows, (r) => r.id, errors, 'id', 'picklist id');
  if (rows.length === 0) return { upserted: 0, created: 0, updated: 0, items: [] };
  const lists = rows.map((r) => ({ id: r.id, status: r.status, orderIds: [...new Set(r.orderIds)] }));

  return em.transactional(async (tx) => {
    const known = await sql<{ id: number }>(
      tx,
      `select id from orders where client_id = ? and id in (select value::int from jsonb_array_elements_text(?::jsonb))`,
      [clientId, json([...new Set(lists.flatMap((l) => l.orderIds))])],
    );
    const orderIds = new Set(known.map((k) => k.id));
    rows.forEach((r, i) => {
      r.orderIds.forEach((id, j) => {
        if (!orderIds.has(id)) errors.add(i, `orderIds[${j}]`, `order ${id} does not exist; load it first with PUT /admin/orders`);
      });
    });
    errors.throwIfAny('picklists', rows.length);

    const written = await sql<{ inserted: boolean }>(
      tx,
      `insert into picklist (client_id, id, status, updated_at)
       select ?, x.id, x.status, now() from jsonb_to_recordset(?::jsonb) as x(id int, status text)
       on conflict (client_id, id) do update set status = excluded.status, updated_at = now()
       returning (xmax = 0) as inserted`,
      [clientId, json(lists.map((l) => ({ id: l.id, status: l.status })))],
    );
    await sql(
      tx,
      `delete from picklist_order where client_id = ? and picklist_id in (select value::int from jsonb_array_elements_text(?::jsonb))`,
      [clientId, json(lists.map((l) => l.id))],
    );
    const members = lists.flatMap((l) => l.orderIds.map((orderId) => ({ picklist_id: l.id, order_id: orderId })));
    if (members.length) {
      await sql(
        tx,
        `insert into picklist_order (client_id, picklist_id, order_id)
         select ?, x.picklist_id, x.order_id from jsonb_to_recordset(?::jsonb) as x(picklist_id int, order_id int)`,
        [clientId, json(members)],
      );
    }
    // A wall's orders and its sessions' picklists decide which orders a scan may take.
    await moveWallVersions(tx, clientId, 'every-wall');
    const created = written.filter((w) => w.inserted).length;
    return { upserted: rows.length, created, updated: rows.length - created, items: lists };
  });
}
