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
