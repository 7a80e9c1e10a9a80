import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { decideOrRefuse } from '../../../machines/refusals';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { slotMachine } from '../../../machines/slot.machine';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { itemOfCommand } from '../item-access';
import { touchCaller } from '../session-access';
import type { CommandContext } from '../actor/wall-actor';
import type { ItemRow, SlotRow } from '../actor/wall-state';

/**
 * PATCH /sort-box-items/{id}/cancel (docs/api.md §7; the PIN is checked by the API before enqueueing).
 * The reserved unit goes back to the order line; a slot left with nothing of its order is Empty again.
 */
export async function cancelItem(ctx: CommandContext, cmd: CommandPayloads['item.cancel']): Promise<SortBoxItemDto> {
  const { item, slot } = await itemOfCommand(ctx, cmd);
  decideOrRefuse(sortBoxItemMachine, item.status, {}, { type: 'CANCEL' }, { item, slot });
  // A reason when it was not the sorter's own cancel (the slot's short button on a light device).
  const dto = cancelPendingItem(ctx, item, cmd.reason);
  touchCaller(ctx, cmd.userId);
  return dto;
}

/**
 * Cancels a pending item within the command: its unit goes back to its line, its slot is vacated when
 * the order has nothing else in it (no other pending or confirmed item), and `sort-box-item.cancelled`
 * says so, with `reason` when it was not the sorter's own cancel (docs/api.md §8). Answers the item.
 */
export function cancelPendingItem(ctx: CommandContext, pending: ItemRow, reason?: 'session-ended' | 'short-button'): SortBoxItemDto {
  const { changes, now } = ctx;
  const d = decideOrRefuse(sortBoxItemMachine, pending.status, {}, { type: 'CANCEL' }, { item: pending });
  const item: ItemRow = { ...pending, status: d.value as ItemRow['status'], cancelledAt: now };
  changes.setItem(item);
  const line = changes.line(item.orderItemId);
  if (!line) throw new Error(`item ${item.id}: its order line is not held by the wall`);
  const after = { ...line, pendingQty: line.pendingQty - item.units };
  changes.setLine(after);
  let slot = item.sortBoxId === null ? undefined : changes.slot(item.sortBoxId);
  if (!slot) throw new Error(`item ${item.id}: its slot is not held by the wall`);
  slot = vacateIfUnused(ctx, slot, item.orderId);
  const dto = toItemDto(item, slot, after);
  for (const e of d.emits) changes.emit(e, { item: dto, sortBox: toSortBoxDto(slot), ...(reason ? { reason } : {}) });
  return dto;
}

/** A slot whose order has no live item left in it (none pending, none confirmed) goes back to Empty, as the slot machine says. */
function vacateIfUnused(ctx: CommandContext, slot: SlotRow, orderId: number): SlotRow {
  if (slot.status !== 'Sorting' || slot.orderId !== orderId) return slot;
  // Confirmed items stay confirmed; the pending ones as this command leaves them.
  const pending = [...ctx.state.pendingItems(), ...ctx.changes.newItems]
    .map((i) => ctx.changes.item(i.id)!)
    .filter((i) => i.sortBoxId === slot.id && i.orderId === orderId && i.status !== 'Cancelled');
  if (ctx.state.confirmedIn(slot.id, orderId) > 0 || pending.length > 0) return slot;
  const d = decide(slotMachine, slot.status, {}, { type: 'VACATE' });
  if (!d.ok) return slot;
  const vacated: SlotRow = { ...slot, status: d.value as SlotRow['status'], orderId: null, assignedAt: null };
  ctx.changes.setSlot(vacated);
  return vacated;
}
