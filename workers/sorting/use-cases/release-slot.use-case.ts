import { AppError } from '../../../shared/errors/app-error';
import { SortBox, SortBoxItem, type ISortBox } from '../../../shared/db/entities';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { ReleaseResultDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { slotMachine } from '../../../machines/slot.machine';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { updateLine } from '../item-access';
import type { WallCommandContext } from '../wall-command';

/**
 * POST /sort-boxes/{barcode}/release (docs/api.md §7): the shipper's B- scan empties a Complete slot.
 * force (Manager/Admin) empties any slot; its pending items are cancelled and their units released.
 */
export async function releaseSlot(ctx: WallCommandContext, cmd: CommandPayloads['slot.release']): Promise<ReleaseResultDto> {
  const { tx, wall, now, emit } = ctx;
  // The API read the barcode and decided who may force (services/api/routes/sort-box-items.route.ts).
  const slot = await tx.findOne(SortBox, { clientId: cmd.clientId, wallId: wall.id, crc: cmd.crc });
  if (!slot) throw new AppError('not-found', `No slot with barcode ${cmd.crc} on wall '${wall.name}'.`);
  const d = decideOrRefuse(slotMachine, slot.status, {}, { type: 'RELEASE', force: cmd.force }, { slot });
  const releasedOrderId = slot.orderId ?? null;
  const cancelledItems = [];
  if (releasedOrderId !== null) {
    const pending = await tx.find(SortBoxItem, { sortBoxId: slot.id, status: 'PendingConfirmation' }, { orderBy: { id: 'asc' } });
    for (const item of pending) {
      const c = decide(sortBoxItemMachine, item.status, {}, { type: 'CANCEL' });
      if (!c.ok) continue;
      item.status = 'Cancelled';
      item.cancelledAt = now;
      const line = await updateLine(tx, item.orderItemId, 0, -item.units);
      const dto = toItemDto(item, slot, line);
      cancelledItems.push(dto);
      for (const e of c.emits) emit(e, { item: dto, sortBox: toSortBoxDto(slot), reason: 'slot-force-released' });
    }
  }
  slot.status = d.value as ISortBox['status'];
  slot.orderId = null;
  slot.assignedAt = null;
  const dto = toSortBoxDto(slot);
  for (const e of d.emits) emit(e, { sortBox: dto, orderId: releasedOrderId, forced: cmd.force, userId: cmd.userId });
  return { ...dto, releasedOrderId, cancelledItems };
}
