import { SortBoxItem, type ISortBox } from '../../../shared/db/entities';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { decideOrRefuse } from '../../../machines/refusals';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { slotMachine } from '../../../machines/slot.machine';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { itemForActor, touchCallerSession, updateLine } from '../item-access';
import type { WallCommandContext } from '../wall-command';

/**
 * PATCH /sort-box-items/{id}/cancel (docs/api.md §7; the PIN is checked by the API before enqueueing).
 * The reserved unit goes back to the order line; a slot left with nothing of its order is Empty again.
 */
export async function cancelItem(ctx: WallCommandContext, cmd: CommandPayloads['item.cancel'], idleTimeoutMs: number): Promise<SortBoxItemDto> {
  const { tx, now, emit } = ctx;
  const { item, slot } = await itemForActor(tx, cmd);
  const d = decideOrRefuse(sortBoxItemMachine, item.status, {}, { type: 'CANCEL' }, { item, slot });
  await touchCallerSession(tx, item.wallId, cmd.userId, now, idleTimeoutMs);
  item.status = 'Cancelled';
  item.cancelledAt = now;
  const after = await updateLine(tx, item.orderItemId, 0, -item.units);
  await vacateIfUnused(ctx, slot, item.orderId, item.id);
  const dto = toItemDto(item, slot, after);
  for (const e of d.emits) emit(e, { item: dto, sortBox: toSortBoxDto(slot) });
  return dto;
}

/** A slot whose order has no other live item in it (none pending, none confirmed) goes back to Empty. */
export async function vacateIfUnused(ctx: WallCommandContext, slot: ISortBox, orderId: number, exceptItemId: number): Promise<boolean> {
  if (slot.status !== 'Sorting' || slot.orderId !== orderId) return false;
  const others = await ctx.tx.count(SortBoxItem, {
    sortBoxId: slot.id,
    orderId,
    id: { $ne: exceptItemId },
    status: { $ne: 'Cancelled' },
  });
  if (others > 0) return false;
  const d = decide(slotMachine, slot.status, {}, { type: 'VACATE' });
  if (!d.ok) return false;
  slot.status = d.value as ISortBox['status'];
  slot.orderId = null;
  slot.assignedAt = null;
  // The order must leave the slot before another may take it (unique index on the order).
  await ctx.tx.flush();
  return true;
}
