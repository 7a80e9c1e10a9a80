// Which slot a scanned unit goes to (docs/api.md §7, "Slot choice"). The caller passes the
// wall's active slots only.

import type { SlotStatus } from './statuses';

export interface SlotCandidate {
  id: number;
  position: number;
  status: SlotStatus;
}

/**
 * The order's own slot when it has one, else the Empty slot with the lowest position (lower id on
 * a tie), else null (`no-empty-slot`). An order whose slot is not among `slots` gets null rather
 * than a second slot, because an order is in at most one slot at a time.
 */
export function chooseSlot<T extends SlotCandidate>(orderSlotId: number | null, slots: readonly T[]): T | null {
  if (orderSlotId !== null) {
    return slots.find((slot) => slot.id === orderSlotId) ?? null;
  }
  let best: T | null = null;
  for (const slot of slots) {
    if (slot.status !== 'Empty') continue;
    if (best === null || slot.position < best.position || (slot.position === best.position && slot.id < best.id)) {
      best = slot;
    }
  }
  return best;
}
