import type { EntityManager } from '@mikro-orm/postgresql';
import { emTransactionSql } from '../../../../shared/db/orm-sql';
import { priorityRank } from '../../../../shared/domain/priority';
import type { AdminOrderDto, OrderRow } from './admin-data.dto';
import { RowErrors, type BulkOptions, codeOf, flagDuplicates, json, type BulkResult } from './bulk';
import {
  deleteOrderLines,
  insertOrderLines,
  knownWarehouses,
  lineScanCounts,
  lockOrderLines,
  lockOrders,
  productSkusByCode,
  slottedOrders,
  updateOrderLines,
  upsertOrderRows,
  type StoredLine,
} from './admin-data.queries';
import { count } from '../../../../shared/text/wording';

/**
 * PUT /admin/orders: creates or replaces orders by id, all-or-nothing.
 *
 * Re-loading an order never loses sorting progress: a line whose SKU stays keeps its confirmed and
 * pending units (a qty below them is refused), a line with sorted or pending units cannot be removed,
 * an order being sorted (units sorted or pending, or sitting in a slot) cannot move to another
 * warehouse, and a Shipped order cannot change at all. The order and line rows are locked while
 * this runs, so a concurrent scan waits instead of reserving a unit on a line being rewritten.
 */
export async function upsertOrders(em: EntityManager, clientId: number, rows: OrderRow[], opts: BulkOptions = {}): Promise<BulkResult<AdminOrderDto>> {
  const errors = new RowErrors();
  flagDuplicates(rows, (r) => r.id, errors, 'id', 'order id');
  rows.forEach((r, i) => {
    const first = new Map<string, number>();
    r.items.forEach((line, j) => {
      const k = codeOf(line.sku);
      const seen = first.get(k);
      if (seen !== undefined) {
        errors.add(i, `items[${j}].sku`, `sku '${line.sku}' is listed twice in this order (line [${seen}] has it); give it once with the total qty`, 'duplicate-value');
      } else first.set(k, j);
    });
  });
  if (rows.length === 0) return { upserted: 0, created: 0, updated: 0, items: [] };

  return em.transactional(async (txEm) => {
    const tx = emTransactionSql(txEm, false, opts.queryTimeoutMs);
    const orderIds = json(rows.map((r) => r.id));
    // One connection per transaction: these run one after the other, in lock order (orders, then lines).
    const warehouses = await knownWarehouses(tx, { clientId, ids: json([...new Set(rows.map((r) => r.warehouseId))]) });
    const products = await productSkusByCode(tx, { clientId, codes: json([...new Set(rows.flatMap((r) => r.items.map((l) => codeOf(l.sku))))]) });
    const storedOrders = await lockOrders(tx, { clientId, ids: orderIds });
    const storedLines = await lockOrderLines(tx, { clientId, orderIds });
    const slotted = await slottedOrders(tx, { clientId, orderIds });
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
    const toInsert: { order_id: number; warehouse_id: number; priority_rank: number; order_date: string; sku: string; qty: number; bins: string[] }[] = [];
    const toDelete: { line: StoredLine; row: number }[] = [];
    const answers: AdminOrderDto[] = [];

    rows.forEach((r, i) => {
      const stored = orderById.get(r.id);
      if (!warehouseIds.has(r.warehouseId)) {
        errors.add(i, 'warehouseId', `warehouse ${r.warehouseId} does not exist; load it first with PUT /admin/warehouses`, 'unknown-warehouse');
      }
      if (stored?.status === 'Shipped') {
        errors.add(i, 'id', `order ${r.id} is shipped and can no longer be changed`, 'order-shipped');
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
          'order-sorting',
        );
      }
      const answerLines: AdminOrderDto['items'] = [];
      const kept = new Set<string>();
      r.items.forEach((line, j) => {
        const sku = skuByCode.get(codeOf(line.sku));
        if (sku === undefined) {
          errors.add(i, `items[${j}].sku`, `no product has sku '${line.sku}'; load it first with PUT /admin/products`, 'unknown-sku');
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
              'order-sorting',
            );
          }
          toUpdate.push({ id: old.id, qty: line.qty, bins });
          answerLines.push({ sku, qty: line.qty, sortedQty: old.confirmed_qty, pendingQty: old.pending_qty, bins });
        } else {
          toInsert.push({ order_id: r.id, warehouse_id: r.warehouseId, priority_rank: priorityRank(r.priority), order_date: new Date(r.orderDate).toISOString(), sku, qty: line.qty, bins });
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
            'order-sorting',
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
      const history = await lineScanCounts(tx, { clientId, lineIds: json(toDelete.map((d) => d.line.id)) });
      const scans = new Map(history.map((h) => [h.order_item_id, h.scans]));
      for (const d of toDelete) {
        const n = scans.get(d.line.id);
        if (n) {
          errors.add(
            d.row,
            'items',
            `line '${d.line.sku}' of order ${d.line.order_id} has a scan history (${count(n, 'scan')}, since cancelled); it cannot be removed, keep it in the order`,
            'order-sorting',
          );
        }
      }
    }
    errors.throwIfAny('orders', rows.length);

    const written = await upsertOrderRows(tx, {
      clientId,
      rows: json(
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
    });
    if (toDelete.length) {
      await deleteOrderLines(tx, { clientId, lineIds: json(toDelete.map((d) => d.line.id)) });
    }
    if (toUpdate.length) {
      await updateOrderLines(tx, { clientId, rows: json(toUpdate) });
    }
    if (toInsert.length) {
      await insertOrderLines(tx, { clientId, rows: json(toInsert) });
    }

    const created = written.filter((w) => w.inserted).length;
    return { upserted: rows.length, created, updated: rows.length - created, items: answers };
  });
}
