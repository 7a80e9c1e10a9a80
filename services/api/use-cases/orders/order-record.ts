import type { OrderStatus, ShipTo } from '../../../../shared/db/entities';
import type { OrderPriority } from '../../../../shared/domain/priority';

export const SORT_STATUSES = ['NotStarted', 'InProgress', 'Sorted'] as const;
export type SortStatus = (typeof SORT_STATUSES)[number];

export interface OrderRecordItem {
  sku: string;
  qty: number;
  sortedQty: number;
  /** Only on GET /orders/{id}: units scanned and waiting for their confirmation. */
  pendingQty?: number;
  bins?: string[];
}

/** The Order record of docs/api.md §9, as the listings and GET /orders/{id} answer it. */
export interface OrderRecord {
  id: number;
  warehouseId: number;
  orderDate: string;
  priority: OrderPriority;
  isDropShip: boolean;
  status: OrderStatus;
  shipTo: ShipTo;
  wallId: number | null;
  crc: string | null;
  sortStatus: SortStatus;
  items: OrderRecordItem[];
}

/** A row of ORDER_RECORD_COLUMNS. */
export interface OrderRow {
  id: number;
  warehouse_id: number;
  order_date: string;
  priority: OrderPriority;
  is_drop_ship: boolean;
  status: OrderStatus;
  ship_to: ShipTo;
  wall_id: number | null;
  crc: string | null;
  items: { sku: string; qty: number; confirmed: number; pending: number; bins: string[] }[];
}

/**
 * The select list of an Order record over `orders o` left-joined to its slot `sb`: each order's lines
 * come from a correlated json_agg on the (client_id, order_id, sku) index, so there is no query per order.
 */
export const ORDER_RECORD_COLUMNS = `o.id, o.warehouse_id, o.priority, o.is_drop_ship, o.status, o.ship_to,
       to_char(o.order_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as order_date,
       sb.wall_id, sb.crc,
       coalesce((select json_agg(json_build_object('sku', i.sku, 'qty', i.qty, 'confirmed', i.confirmed_qty,
                                                   'pending', i.pending_qty, 'bins', i.bins) order by i.id)
                 from order_item i where i.client_id = o.client_id and i.order_id = o.id), '[]'::json) as items`;

/** The slot holding an order (at most one, a database constraint). */
export const ORDER_SLOT_JOIN = 'left join sort_box sb on sb.client_id = o.client_id and sb.order_id = o.id';

/**
 * Sorted: every line fully confirmed. InProgress: some unit confirmed or pending, or the order
 * holds a slot (a swap or release can leave a slot with nothing confirmed yet). Else NotStarted.
 */
export function sortStatusOf(items: OrderRow['items'], inSlot: boolean): SortStatus {
  if (items.every((i) => i.confirmed >= i.qty)) return 'Sorted';
  if (inSlot || items.some((i) => i.confirmed > 0 || i.pending > 0)) return 'InProgress';
  return 'NotStarted';
}

/** One row as the Order record; `bins` and `pendingQty` are added to each line only when asked for. */
export function toOrderRecord(r: OrderRow, opts: { bins: boolean; pending?: boolean }): OrderRecord {
  return {
    id: r.id,
    warehouseId: r.warehouse_id,
    orderDate: r.order_date,
    priority: r.priority,
    isDropShip: r.is_drop_ship,
    status: r.status,
    shipTo: r.ship_to,
    wallId: r.wall_id,
    crc: r.crc,
    sortStatus: sortStatusOf(r.items, r.wall_id !== null),
    items: r.items.map((i) => ({
      sku: i.sku,
      qty: i.qty,
      sortedQty: i.confirmed,
      ...(opts.pending ? { pendingQty: i.pending } : {}),
      ...(opts.bins ? { bins: i.bins } : {}),
    })),
  };
}
