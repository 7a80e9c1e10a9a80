// Which order a scanned unit goes to (docs/api.md §7, "Order choice"). The caller has already
// narrowed the candidates to unshipped, non-drop-ship orders of the wall's warehouse (and of the
// session's picklist) that contain the scanned sku.

import { type OrderPriority, priorityRank } from './priority';

export interface OrderCandidate {
  orderId: number;
  priority: OrderPriority;
  orderDate: Date;
  /** Slot of THIS wall holding the order, if any. */
  slotId: number | null;
  /** required − confirmed − pending units of the scanned sku for this order. */
  remainingUnits: number;
}

/**
 * Negative when `a` should be chosen before `b`: an order already in a slot of this wall first
 * (keeps an order's units together), then higher priority, older orderDate, lower orderId.
 */
export function compareOrderCandidates(a: OrderCandidate, b: OrderCandidate): number {
  const aInSlot = a.slotId !== null ? 1 : 0;
  const bInSlot = b.slotId !== null ? 1 : 0;
  if (aInSlot !== bInSlot) return bInSlot - aInSlot;
  const byPriority = priorityRank(b.priority) - priorityRank(a.priority);
  if (byPriority !== 0) return byPriority;
  const byDate = a.orderDate.getTime() - b.orderDate.getTime();
  if (byDate !== 0) return byDate;
  return a.orderId - b.orderId;
}

/** The order the scan goes to, or null when no candidate still needs the sku (`no-fulfillable-order`). */
export function chooseOrder<T extends OrderCandidate>(candidates: readonly T[]): T | null {
  let best: T | null = null;
  for (const candidate of candidates) {
    if (!(candidate.remainingUnits > 0)) continue;
    if (best === null || compareOrderCandidates(candidate, best) < 0) best = candidate;
  }
  return best;
}
