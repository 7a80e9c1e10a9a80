import type { ISortBox } from '../../../shared/db/entities';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { decideOrRefuse } from '../../../machines/refusals';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { slotMachine } from '../../../machines/slot.machine';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { itemForActor, type SlotFacts } from '../item-access';
import { sessionExpiresAt } from '../session-access';
import { cancelWrite, itemRead } from '../queries/item.queries';
import type { WallCommandContext } from '../wall-command';

/**
 * PATCH /sort-box-items/{id}/cancel (docs/api.md §7; the PIN is checked by the API before enqueueing).
 * The reserved unit goes back to the order line; a slot left with nothing of its order is Empty again.
 * One read (itemRead, the line locked) and one write with the command's record (cancelWrite).
 */
export async function cancelItem(ctx: WallCommandContext, cmd: CommandPayloads['item.cancel'], idleTimeoutMs: number): Promise<SortBoxItemDto> {
  const { db, now, emit } = ctx;
  const [row] = await itemRead(db, { itemId: cmd.itemId, clientId: cmd.clientId, wallId: cmd.wallId, sessionToken: null, targetCrc: null });
  const { item, slot, line } = itemForActor(row, cmd);
  const d = decideOrRefuse(sortBoxItemMachine, item.status, {}, { type: 'CANCEL' }, { item, slot });
  item.status = 'Cancelled';
  item.cancelledAt = now;
  // The line is locked: its figures after the write are known now.
  const after = { ...line, pendingQty: line.pendingQty - item.units };
  const vacateSlot = vacateIfUnused(slot, item.orderId, row.others_in_slot);
  const dto = toItemDto(item, slot, after);
  for (const e of d.emits) emit(e, { item: dto, sortBox: toSortBoxDto(slot), ...(cmd.reason ? { reason: cmd.reason } : {}) });
  await cancelWrite(db, {
    ...ctx.record(dto),
    itemId: item.id, status: item.status, itemUnits: item.units, orderItemId: item.orderItemId,
    userId: cmd.userId, expiresAt: sessionExpiresAt(now, idleTimeoutMs), slotId: slot.id, vacateSlot, slotStatus: slot.status,
  });
  return dto;
}

/**
 * A slot whose order has no other live item in it (none pending, none confirmed) goes back to Empty:
 * changes `slot` as the slot machine says; true when the slot is to be written.
 */
function vacateIfUnused(slot: SlotFacts, orderId: number, othersInSlot: number): boolean {
  if (slot.status !== 'Sorting' || slot.orderId !== orderId) return false;
  if (othersInSlot > 0) return false;
  const d = decide(slotMachine, slot.status, {}, { type: 'VACATE' });
  if (!d.ok) return false;
  slot.status = d.value as ISortBox['status'];
  slot.orderId = null;
  return true;
}
