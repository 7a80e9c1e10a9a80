import { AppError } from '../../../shared/errors/app-error';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { ReleaseResultDto, SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import type { SlotStatus } from '../../../shared/domain/slot-choice';
import { decide } from '../../../machines/decide';
import { slotMachine } from '../../../machines/slot.machine';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto, type LineFigures } from '../../../shared/dto/sorting.mappers';
import { releaseWrite, slotRead } from '../queries/slot.queries';
import type { WallCommandContext } from '../wall-command';

/**
 * POST /sort-boxes/{barcode}/release (docs/api.md §7): the shipper's B- scan empties a Complete slot.
 * force (Manager/Admin) empties any slot; its pending items are cancelled and their units released.
 * One read (slotRead) and one write with the command's record (releaseWrite).
 */
export async function releaseSlot(ctx: WallCommandContext, cmd: CommandPayloads['slot.release']): Promise<ReleaseResultDto> {
  const { db, wall, now, emit } = ctx;
  // The API read the barcode and decided who may force (services/api/routes/sort-box-items.route.ts).
  const [read] = await slotRead(db, { clientId: cmd.clientId, wallId: wall.id, crc: cmd.crc });
  if (!read) throw new AppError('not-found', `Slot ${cmd.crc} is no longer on wall '${wall.name}': it was detached after the scan. Nothing was released.`);
  const { pending, ...slot } = read;
  const d = decideOrRefuse(slotMachine, slot.status, {}, { type: 'RELEASE', force: cmd.force }, { slot });
  const releasedOrderId = slot.orderId ?? null;
  const cancelledItems: SortBoxItemDto[] = [];
  const cancelledIds: number[] = [];
  // Each line as it stands after the items cancelled so far (several pending items may share one).
  const lines = new Map<number, LineFigures & { released: number }>();
  let itemStatus = 'Cancelled';
  if (releasedOrderId !== null) {
    for (const p of pending) {
      const c = decide(sortBoxItemMachine, p.status, {}, { type: 'CANCEL' });
      if (!c.ok) continue;
      itemStatus = c.value;
      const line = lines.get(p.orderItemId) ?? { qty: p.qty, confirmedQty: p.confirmedQty, pendingQty: p.pendingQty, released: 0 };
      line.pendingQty -= p.units;
      line.released += p.units;
      lines.set(p.orderItemId, line);
      const item = { ...p, status: c.value as SortBoxItemDto['status'], createdAt: new Date(p.createdAt), confirmedAt: p.confirmedAt === null ? null : new Date(p.confirmedAt), cancelledAt: now };
      const dto = toItemDto(item, slot, line);
      cancelledItems.push(dto);
      cancelledIds.push(p.id);
      for (const e of c.emits) emit(e, { item: dto, sortBox: toSortBoxDto(slot), reason: 'slot-force-released' });
    }
  }
  slot.status = d.value as SlotStatus;
  slot.orderId = null;
  const dto = toSortBoxDto(slot);
  for (const e of d.emits) emit(e, { sortBox: dto, orderId: releasedOrderId, forced: cmd.force, userId: cmd.userId });
  const result: ReleaseResultDto = { ...dto, releasedOrderId, cancelledItems };
  await releaseWrite(db, {
    ...ctx.record(result),
    slotId: slot.id,
    slotStatus: slot.status,
    cancelledIds,
    itemStatus,
    lineIds: [...lines.keys()],
    lineUnits: [...lines.values()].map((l) => l.released),
  });
  return result;
}
