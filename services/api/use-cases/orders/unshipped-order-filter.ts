import type { AppConfig } from '../../../../shared/config/config';
import type { WallWorkflow } from '../../../../shared/db/entities';
import type { OrderPriority } from '../../../../shared/domain/priority';

/** The filters common to the three unshipped-order listings (docs/api.md §9, "Orders"). */
export interface UnshippedOrderFilter {
  /** Only orders placed within the last `recentDays` days. */
  recent: boolean;
  recentDays: number;
  /** Also orders with nothing left to sort (every line fully confirmed). */
  empty: boolean;
  /** Also drop-ship orders (which never go over the wall). */
  allowDropShip: boolean;
  priority?: OrderPriority;
  /** PicklistSort: only orders of an Open picklist; FreeSort: no restriction. */
  workflow?: WallWorkflow;
  warehouseId?: number;
  /** The clock, for tests; defaults to now. */
  now?: Date;
}

/** The filter as a listing's query string gives it: without the window `recent` means (RECENT_ORDER_DAYS). */
export type UnshippedOrderQuery = Omit<UnshippedOrderFilter, 'recentDays'>;

/** A listing's query as its filter: `recent` is the last RECENT_ORDER_DAYS days. */
export function unshippedOrderFilter<Q extends UnshippedOrderQuery>(query: Q, config: Pick<AppConfig, 'RECENT_ORDER_DAYS'>): Q & UnshippedOrderFilter {
  return { ...query, recentDays: config.RECENT_ORDER_DAYS };
}

/**
 * The WHERE clause (over `orders o`) shared by the listings, with its positional parameters.
 * Conditions are plain SQL over indexed columns so each listing stays one statement.
 */
export function unshippedOrderWhere(clientId: number, f: UnshippedOrderFilter): { sql: string; params: unknown[] } {
  const conditions = [`o.client_id = ?`, `o.status = 'Unshipped'`];
  const params: unknown[] = [clientId];
  if (f.recent) {
    const since = new Date((f.now ?? new Date()).getTime() - f.recentDays * 24 * 3600 * 1000);
    conditions.push(`o.order_date >= ?::timestamptz`);
    params.push(since.toISOString());
  }
  if (!f.allowDropShip) conditions.push(`not o.is_drop_ship`);
  if (f.priority) {
    conditions.push(`o.priority = ?`);
    params.push(f.priority);
  }
  if (f.warehouseId !== undefined) {
    conditions.push(`o.warehouse_id = ?`);
    params.push(f.warehouseId);
  }
  if (f.workflow === 'PicklistSort') {
    conditions.push(
      `exists (select 1 from picklist_order po join picklist p on p.client_id = po.client_id and p.id = po.picklist_id
               where po.client_id = o.client_id and po.order_id = o.id and p.status = 'Open')`,
    );
  }
  if (!f.empty) {
    conditions.push(
      `exists (select 1 from order_item oi where oi.client_id = o.client_id and oi.order_id = o.id and oi.confirmed_qty < oi.qty)`,
    );
  }
  return { sql: conditions.join('\n  and '), params };
}

/** The listing order: most urgent first, then oldest, then lowest id (as the scan's order choice). */
export const UNSHIPPED_ORDER_BY = 'o.priority_rank desc, o.order_date asc, o.id asc';

/** The filter's WHERE parameters plus an optional LIMIT, shared by the listings that take `limit`. */
export function unshippedOrderQuery(clientId: number, filter: UnshippedOrderFilter & { limit?: number }): { where: string; limit: string; params: unknown[] } {
  const where = unshippedOrderWhere(clientId, filter);
  const params: unknown[] = [...where.params];
  if (filter.limit === undefined) return { where: where.sql, limit: '', params };
  params.push(filter.limit);
  return { where: where.sql, limit: 'limit ?', params };
}
