import { query, queryVariants } from '../../../../shared/db/named-sql';
import type { OrderPriority } from '../../../../shared/domain/priority';
import type { OrderRow } from './order-record';
import type { UnshippedOrderFilter } from './unshipped-order-filter';

/* The order reads of the API (docs/api.md §9, "Orders"): GET /orders/{id} and the unshipped listings. */

/**
 * The select list of an Order record over `orders o` left-joined to its slot `sb` (at most one, a
 * database constraint): each order's lines come from a correlated json_agg on the
 * (client_id, order_id, sku) index, so there is no query per order.
 */
const orderRecordSql = (serials: boolean) => `
select o.id, o.warehouse_id, o.priority, o.is_drop_ship, o.status, o.ship_to,
       to_char(o.order_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as order_date,
       sb.wall_id, sb.crc,
       coalesce((select json_agg(json_build_object('sku', i.sku, 'qty', i.qty, 'confirmed', i.confirmed_qty,
                                                   'pending', i.pending_qty, 'bins', i.bins${serials ? `,
                                                   -- The serial numbers its confirmed units were sorted with (docs/api.md "Serial numbers").
                                                   'serials', coalesce((select json_agg(s.serial order by s.confirmed_at, s.id) from sort_box_item s
                                                                         where s.order_item_id = i.id and s.serial is not null), '[]'::json)` : ''}) order by i.id)
                 from order_item i where i.client_id = o.client_id and i.order_id = o.id), '[]'::json) as items
  from orders o
  left join sort_box sb on sb.client_id = o.client_id and sb.order_id = o.id`;
const ORDER_RECORD = orderRecordSql(false);

/** One order of the client in any status. */
export const orderRecord = query<{ clientId: number; orderId: number }, OrderRow>('order-record', `${orderRecordSql(true)}
 where o.client_id = :clientId::int and o.id = :orderId::int`);

/** Which conditions of the unshipped filter a listing uses: the shape of its statement. */
export type UnshippedShape = Pick<UnshippedOrderFilter, 'recent' | 'empty' | 'allowDropShip'> & {
  priority: boolean;
  warehouse: boolean;
  picklistSort: boolean;
  limit: boolean;
};

/** The values of a listing's conditions (only those of its shape are bound). */
export interface UnshippedParams {
  clientId: number;
  since?: string;
  priority?: OrderPriority;
  warehouseId?: number;
  limit?: number;
}

export function unshippedShape(f: UnshippedOrderFilter & { limit?: number }): UnshippedShape {
  return {
    recent: f.recent,
    empty: f.empty,
    allowDropShip: f.allowDropShip,
    priority: f.priority !== undefined,
    warehouse: f.warehouseId !== undefined,
    picklistSort: f.workflow === 'PicklistSort',
    limit: f.limit !== undefined,
  };
}

const shapeKey = (s: UnshippedShape) =>
  (['recent', 'empty', 'allowDropShip', 'priority', 'warehouse', 'picklistSort', 'limit'] as const).map((k) => (s[k] ? '1' : '0')).join('');

/**
 * The WHERE clause (over `orders o`) shared by the listings. Conditions are plain SQL over indexed
 * columns, only those the listing asks for, so each listing stays one statement with its own plan.
 */
function unshippedWhere(s: UnshippedShape): string {
  const conditions = [`o.client_id = :clientId::int`, `o.status = 'Unshipped'`];
  if (s.recent) conditions.push(`o.order_date >= :since::timestamptz`);
  if (!s.allowDropShip) conditions.push(`not o.is_drop_ship`);
  if (s.priority) conditions.push(`o.priority = :priority::text`);
  if (s.warehouse) conditions.push(`o.warehouse_id = :warehouseId::int`);
  if (s.picklistSort) {
    conditions.push(
      `exists (select 1 from picklist_order po join picklist p on p.client_id = po.client_id and p.id = po.picklist_id
               where po.client_id = o.client_id and po.order_id = o.id and p.status = 'Open')`,
    );
  }
  if (!s.empty) {
    conditions.push(`exists (select 1 from order_item oi where oi.client_id = o.client_id and oi.order_id = o.id and oi.confirmed_qty < oi.qty)`);
  }
  return conditions.join('\n  and ');
}

/** The listing order: most urgent first, then oldest, then lowest id (as the scan's order choice). */
const UNSHIPPED_ORDER_BY = 'order by o.priority_rank desc, o.order_date asc, o.id asc';
const limitOf = (s: UnshippedShape) => (s.limit ? 'limit :limit::int' : '');

/** ListUnshippedOrders: every matching order with its lines. */
export const unshippedOrders = queryVariants<UnshippedShape, UnshippedParams, OrderRow>(
  'unshipped-orders',
  shapeKey,
  (s) => `${ORDER_RECORD}\n where ${unshippedWhere(s)}\n ${UNSHIPPED_ORDER_BY} ${limitOf(s)}`,
);

/** ListUnshippedOrderIds: the ids ListUnshippedOrders would list, in the same order. */
export const unshippedOrderIds = queryVariants<UnshippedShape, UnshippedParams, { id: number }>(
  'unshipped-order-ids',
  shapeKey,
  (s) => `select o.id from orders o where ${unshippedWhere(s)}\n ${UNSHIPPED_ORDER_BY} ${limitOf(s)}`,
);

/** A row of unshippedProducts. */
export interface UnshippedProductRow {
  sku: string;
  title: string | null;
  units_to_sort: number;
  orders: number;
  bin_lists: string[][] | null;
}

/**
 * Per sku over the matching orders: the units still to sort (qty - confirmed), how many orders still
 * need it, and the bins of those lines. Skus with nothing left only with `empty`. Most units first, then sku.
 */
export const unshippedProducts = queryVariants<UnshippedShape, UnshippedParams, UnshippedProductRow>('unshipped-products', shapeKey, (s) => `
select i.sku, p.title,
       sum(i.qty - i.confirmed_qty)::int as units_to_sort,
       (count(*) filter (where i.qty > i.confirmed_qty))::int as orders,
       json_agg(i.bins) filter (where i.qty > i.confirmed_qty) as bin_lists
  from orders o
  join order_item i on i.client_id = o.client_id and i.order_id = o.id
  left join product p on p.client_id = o.client_id and p.sku = i.sku
 where ${unshippedWhere(s)}
 group by i.sku, p.title
 ${s.empty ? '' : 'having sum(i.qty - i.confirmed_qty) > 0'}
 order by units_to_sort desc, i.sku asc`);

/** The values of a filter's conditions. */
export function unshippedParams(clientId: number, f: UnshippedOrderFilter & { limit?: number }): UnshippedParams {
  return {
    clientId,
    ...(f.recent ? { since: new Date((f.now ?? new Date()).getTime() - f.recentDays * 24 * 3600 * 1000).toISOString() } : {}),
    ...(f.priority ? { priority: f.priority } : {}),
    ...(f.warehouseId !== undefined ? { warehouseId: f.warehouseId } : {}),
    ...(f.limit !== undefined ? { limit: f.limit } : {}),
  };
}
