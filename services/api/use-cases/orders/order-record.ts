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
  /** Only on GET /orders/{id}: the serial numbers of its confirmed units, in the order they were confirmed. */
  serials?: string[];
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

/** A row of an Order record's statement (orders.queries.ts). */
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
  items: { sku: string; qty: number; confirmed: number; pending: number; bins: string[]; serials?: string[] }[];
}

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
      ...(opts.pending ? { pendingQty: i.pending, serials: i.serials ?? [] } : {}),
      ...(opts.bins ? { bins: i.bins } : {}),
    })),
  };
}
