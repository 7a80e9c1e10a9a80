import type { EntityManager } from '@mikro-orm/postgresql';
import { PRODUCT_CODE_KINDS } from '../../../../shared/db/entities/product.entity';
import { priorityRank } from '../../../../shared/domain/priority';
import type { AdminOrderDto, OrderRow } from './admin-data.dto';
import { RowErrors, codeOf, flagDuplicates, json, sql, type BulkResult } from './bulk';
import { count } from '../../../../shared/text/wording';
import { moveWallVersions } from '../walls/wall-versions';

interface StoredLine {
  id: number;
  order_id: number;
  sku: string;
  qty: number;
  confirmed_qty: number;
  pending_qty: number;
}

interface StoredOrder {
  id: number;
  status: string;
  warehouse_id: number;
}

/**
 * PUT /admin/orders: creates or replaces orders by id, all-or-nothing.
 *
 * Re-loading an order never loses sorting progress: a line whose SKU stays keeps its confirmed and
 * pending units (a qty below them is refused), a line with sorted or pending units cannot be removed,
 * an order being sorted (units sorted or pending, or sitting in a slot) cannot move to another
 * warehouse, and a Shipped order cannot change at all. The order and line rows are locked while
 * this runs, so a concurrent scan waits instead of reserving a unit on a line being rewritten.
 */
export async function upsertOrders(em: EntityManager, clientId: number, rows: OrderRow[]): Promise<BulkResult<AdminOrderDto>> {
  const errors = new RowErrors();
  flagDuplicates(rows, (r) => r.id, errors, 'id', 'order id');
  rows.forEach((r, i) => {
    const first = new Map<string, number>();
    r.items.forEach((line, j) => {
      const k = codeOf(line.sku);
      const seen = first.get(k);
      if (seen !== undefined) {
        errors.add(i, `items[${j}].sku`, `sku '${line.sku}' is listed twice in this order (line [${seen}] has it); give it once with the total qty`);
      } else first.set(k, j);
    });
  });
  if (rows.length === 0) return { upserted: 0, created: 0, updated: 0, items: [] };

  return em.transactional(async (tx) => {
    const orderIds = json(rows.map((r) => r.id));
    // One connection per transaction: these run one after the other, in lock order (orders, then lines).
    const warehouses = await sql<{ id: number }>(
      tx,
      `select id from warehouse where client_id = ? and id in (select value::int from jsonb_array_elements_text(?::jsonb))`,
      [clientId, json([...new Set(rows.map((r) => r.warehouseId))])],
    );
    const products = await sql<{ code: string; sku: string }>(
      tx,
      `select pc.code, p.sku from product_code pc join product p on p.id = pc.product_id
       where pc.client_id = ? and pc.kind = ${PRODUCT_CODE_KINDS.sku}
         and pc.code in (select value from jsonb_array_elements_text(?::jsonb))`,
      [clientId, json([...new Set(rows.flatMap((r) => r.items.map((l) => codeOf(l.sku))))])],
    );
    const storedOrders = await sql<StoredOrder>(
      tx,
      `select id, status, warehouse_id from orders
       where client_id = ? and id in (select value::int from jsonb_array_elements_text(?::jsonb))
       order by id for update`,
      [clientId, orderIds],
    );
    const storedLines = await sql<StoredLine>(
      tx,
      `select id, order_id, sku, qty, confirmed_qty, pending_qty from order_item
       where client_id = ? and order_id in (select value::int from jsonb_array_elements_text(?::jsonb))
       order by id for update`,
      [clientId, orderIds],
    );
    const slotted = await sql<{ order_id: number }>(
      tx,
      `select order_id from sort_box where client_id = ? and order_id in (select value::int from jsonb_array_elements_text(?::jsonb))`,
      [clientId, orderIds],
    );
    const warehouseIds = new Set(warehouses.map((w) => w.id));
    const skuByCode = new Map(products.map((p) => [p.code, p.sku]));
    const orderById = new Map(storedOrders.map((o) => [o.id, o]));
    const linesByOrder = new Map<number, StoredLine[]>();
    for (const l of storedLines) {
      const list = linesByOrder.get(l.order_id);
      if (list) list.push(l);
      else linesByOrder.set(l.order_id, [l]);
    }
    const inSlot = new Set(slotted.map((s) => s.order_id));

    const toUpdate: { id: number; qty: number; bins: string[] }[] = [];
    const toInsert: { order_id: number; warehouse_id: number; sku: string; qty: number; bins: string[] }[] = [];
    const toDelete: { line: StoredLine; row: number }[] = [];
    const answers: AdminOrderDto[] = [];

    rows.forEach((r, i) => {
      const stored = orderById.get(r.id);
      if (!warehouseIds.has(r.warehouseId)) {
        errors.add(i, 'warehouseId', `warehouse ${r.warehouseId} does not exist; load it first with PUT /admin/warehouses`);
      }
      if (stored?.status === 'Shipped') {
        errors.add(i, 'id', `order ${r.id} is shipped and can no longer be changed`);
        return;
      }
      const lines = linesByOrder.get(r.id) ?? [];
      const storedBySku = new Map(lines.map((l) => [l.sku, l]));
      const beingSorted = inSlot.has(r.id) || lines.some((l) => l.confirmed_qty + l.pending_qty > 0);
      if (stored && stored.warehouse_id !== r.warehouseId && beingSorted) {
        errors.add(
          i,
          'warehouseId',
          `order ${r.id} is being sorted in warehouse ${stored.warehouse_id}; it cannot move to warehouse ${r.warehouseId}`,
        );
      }
      const answerLines: AdminOrderDto['items'] = [];
      const kept = new Set<string>();
      r.items.forEach((line, j) => {
        const sku = skuByCode.get(codeOf(line.sku));
        if (sku === undefined) {
          errors.add(i, `items[${j}].sku`, `no product has sku '${line.sku}'; load it first with PUT /admin/products`);
          return;
        }
        const bins = [...new Set([...(line.bin ? [line.bin] : []), ...(line.bins ?? [])])];
        const old = storedBySku.get(sku);
        if (old) {
          kept.add(sku);
          const progress = old.confirmed_qty + old.pending_qty;
          if (line.qty < progress) {
            errors.add(
              i,
              `items[${j}].qty`,
              `order ${r.id} has ${count(old.confirmed_qty, 'unit')} of '${sku}' sorted and ${old.pending_qty} awaiting confirmation; qty cannot go below ${progress}`,
            );
          }
          toUpdate.push({ id: old.id, qty: line.qty, bins });
          answerLines.push({ sku, qty: line.qty, sortedQty: old.confirmed_qty, pendingQty: old.pending_qty, bins });
        } else {
          toInsert.push({ order_id: r.id, warehouse_id: r.warehouseId, sku, qty: line.qty, bins });
          answerLines.push({ sku, qty: line.qty, sortedQty: 0, pendingQty: 0, bins });
        }
      });
      for (const old of lines) {
        if (kept.has(old.sku)) continue;
        if (old.confirmed_qty + old.pending_qty > 0) {
          errors.add(
            i,
            'items',
            `line '${old.sku}' of order ${r.id} has ${count(old.confirmed_qty, 'unit')} sorted and ${old.pending_qty} awaiting confirmation; it cannot be removed`,
          );
        } else {
          toDelete.push({ line: old, row: i });
        }
      }
      answers.push({
        id: r.id,
        warehouseId: r.warehouseId,
        orderDate: new Date(r.orderDate).toISOString(),
        priority: r.priority,
        isDropShip: r.isDropShip,
        status: 'Unshipped',
        shippedAt: null,
        shipTo: { ...r.shipTo, street2: r.shipTo.street2 ?? null, state: r.shipTo.state ?? null },
        items: answerLines,
      });
    });

    // A line scanned once and cancelled keeps its scan history (sort_box_item points at it).
    if (toDelete.length) {
      const history = await sql<{ order_item_id: number; scans: number }>(
        tx,
        `select order_item_id, count(*)::int as scans from sort_box_item
         where client_id = ? and order_item_id in (select value::int from jsonb_array_elements_text(?::jsonb))
         group by order_item_id`,
        [clientId, json(toDelete.map((d) => d.line.id))],
      );
      const scans = new Map(history.map((h) => [h.order_item_id, h.scans]));
      for (const d of toDelete) {
        const n = scans.get(d.line.id);
        if (n) {
          errors.add(
            d.row,
            'items',
            `line '${d.line.sku}' of order ${d.line.order_id} has a scan history (${count(n, 'scan')}, since cancelled); it cannot be removed, keep it in the order`,
          );
        }
      }
    }
    errors.throwIfAny('orders', rows.length);

    const written = await sql<{ inserted: boolean }>(
      tx,
      `insert into orders (client_id, id, warehouse_id, order_date, priority, priority_rank, is_drop_ship, ship_to, created_at, updated_at)
       select ?, x.id, x.warehouse_id, x.order_date, x.priority, x.priority_rank, x.is_drop_ship, x.ship_to, now(), now()
       from jsonb_to_recordset(?::jsonb) as x(id int, warehouse_id int, order_date timestamptz, priority text,
            priority_rank smallint, is_drop_ship boolean, ship_to jsonb)
       on conflict (client_id, id) do update set
         warehouse_id = excluded.warehouse_id, order_date = excluded.order_date, priority = excluded.priority,
         priority_rank = excluded.priority_rank, is_drop_ship = excluded.is_drop_ship, ship_to = excluded.ship_to,
         updated_at = now()
       returning (xmax = 0) as inserted`,
      [
        clientId,
        json(
          answers.map((o) => ({
            id: o.id,
            warehouse_id: o.warehouseId,
            order_date: o.orderDate,
            priority: o.priority,
            priority_rank: priorityRank(o.priority),
            is_drop_ship: o.isDropShip,
            ship_to: o.shipTo,
          })),
        ),
      ],
    );
    if (toDelete.length) {
      await sql(tx, `delete from order_item where client_id = ? and id in (select value::int from jsonb_array_elements_text(?::jsonb))`, [
        clientId,
        json(toDelete.map((d) => d.line.id)),
      ]);
    }
    if (toUpdate.length) {
      await sql(
        tx,
        `update order_item oi set qty = x.qty, bins = x.bins
         from jsonb_to_recordset(?::jsonb) as x(id int, qty int, bins text[])
         where oi.id = x.id and oi.client_id = ?`,
        [json(toUpdate), clientId],
      );
    }
    if (toInsert.length) {
      await sql(
        tx,
        // The line carries its order's warehouse: the scan finds open lines by warehouse and sku.
        `insert into order_item (client_id, order_id, warehouse_id, sku, qty, confirmed_qty, pending_qty, bins)
         select ?, x.order_id, x.warehouse_id, x.sku, x.qty, 0, 0, x.bins
         from jsonb_to_recordset(?::jsonb) as x(order_id int, warehouse_id int, sku text, qty int, bins text[])`,
        [clientId, json(toInsert)],
      );
    }

    // The walls holding one of these orders in a slot decide from the new figures on.
    await moveWallVersions(tx, clientId, { orderIds: [...inSlot] });
    const created = written.filter((w) => w.inserted).length;
    return { upserted: rows.length, created, updated: rows.length - created, items: answers };
  });
}
