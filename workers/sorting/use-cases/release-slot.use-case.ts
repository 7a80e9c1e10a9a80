import { AppError } from '../../../shared/errors/app-error';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { ReleaseResultDto, SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { slotMachine } from '../../../machines/slot.machine';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import type { CommandContext } from '../actor/wall-actor';
import type { ItemRow, SlotRow } from '../actor/wall-state';

/**
 * POST /sort-boxes/{barcode}/release (docs/api.md §7): the shipper's B- scan empties a Complete slot.
 * force (Manager/Admin) empties any slot; its pending items are cancelled and their units released.
 */
export async function releaseSlot(ctx: CommandContext, cmd: CommandPayloads['slot.release']): Promise<ReleaseResultDto> {
  const { state, changes, now } = ctx;
  // The API read the barcode and decided who may force (services/api/routes/sort-box-items.route.ts).
  const slot = state.slotByCrc(cmd.crc);
  if (!slot) throw new AppError('not-found', `Slot ${cmd.crc} is no longer on wall '${state.wall.name}': it was detached after the scan. Nothing was released.`);
  const d = decideOrRefuse(slotMachine, slot.status, {}, { type: 'RELEASE', force: cmd.force }, { slot });
  const releasedOrderId = slot.orderId ?? null;
  const cancelledItems: SortBoxItemDto[] = [];
  if (releasedOrderId !== null) {
    for (const p of state.pendingItems((i) => i.sortBoxId === slot.id)) {
      const c = decide(sortBoxItemMachine, p.status, {}, { type: 'CANCEL' });
      if (!c.ok) continue;
      // Each line as it stands after the items cancelled so far (several pending items may share one).
      const line = changes.line(p.orderItemId);
      if (!line) throw new Error(`item ${p.id}: its order line is not held by the wall`);
      const after = { ...line, pendingQty: line.pendingQty - p.units };
      changes.setLine(after);
      const item: ItemRow = { ...p, status: c.value as ItemRow['status'], cancelledAt: now };
      changes.setItem(item);
      const dto = toItemDto(item, slot, after);
      cancelledItems.push(dto);
      for (const e of c.emits) changes.emit(e, { item: dto, sortBox: toSortBoxDto(slot), reason: 'slot-force-released' });
    }
  }
  const emptied: SlotRow = { ...slot, status: d.value as SlotRow['status'], orderId: null, assignedAt: null };
  changes.setSlot(emptied);
  const dto = toSortBoxDto(emptied);
  for (const e of d.emits) changes.emit(e, { sortBox: dto, orderId: releasedOrderId, forced: cmd.force, userId: cmd.userId });
  return { ...dto, releasedOrderId, cancelledItems };
}
