import { AppError } from '../../../shared/errors/app-error';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import { SortBox, SortBoxItem, type ISortBox } from '../../../shared/db/entities';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { slotMachine } from '../../../machines/slot.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { itemForActor, lockLine } from '../item-access';
import { sessionByToken, touchSession } from '../session-access';
import type { WallCommandContext } from '../wall-command';

/**
 * PATCH /sort-box-items/{id}/swap (docs/api.md §7): moves the item's order to an Empty slot of the same
 * wall, only while this item is the first product sorted into its slot for that order.
 */
export async function swapItem(ctx: WallCommandContext, cmd: CommandPayloads['item.swap'], idleTimeoutMs: number): Promise<SortBoxItemDto> {
  const { tx, wall, now, emit } = ctx;
  const session = await sessionByToken(tx, cmd.clientId, wall.id, cmd.sessionToken);
  if (session.userId !== cmd.userId) {
    throw new AppError('forbidden', 'This session token belongs to another sorter; use your own session.');
  }
  touchSession(session, now, idleTimeoutMs);
  const { item, slot: from } = await itemForActor(tx, cmd);

  const parsed = parseSlotBarcode(cmd.barcode);
  if (parsed?.kind === 'shipper') {
    throw new AppError('shipper-barcode-not-accepted', `'${cmd.barcode.trim()}' is a shipper barcode; scan the target slot's sorter barcode (A-…) or its 8-character code.`);
  }
  if (!parsed) {
    throw new AppError('validation-failed', `'${cmd.barcode.trim()}' is not a slot barcode: scan A-XXXXXXXX or the 8-character code.`, {
      errors: [{ path: 'barcode', message: 'not a slot barcode' }],
    });
  }
  const to = await tx.findOne(SortBox, { clientId: cmd.clientId, wallId: wall.id, crc: parsed.crc });
  if (!to) throw new AppError('not-found', `No slot with barcode ${parsed.crc} on wall '${wall.name}'.`);

  const others = await tx.count(SortBoxItem, { sortBoxId: from.id, orderId: item.orderId, id: { $ne: item.id }, status: { $ne: 'Cancelled' } });
  const d = decideOrRefuse(sortBoxItemMachine, item.status, {}, { type: 'SWAP', firstInSlot: others === 0 }, { item, slot: from, earlierUnits: others });
  const line = await lockLine(tx, item.orderItemId);
  if (to.id === from.id) return toItemDto(item, from, line);

  const assign = decideOrRefuse(slotMachine, to.status, {}, { type: 'ASSIGN' }, { slot: to });
  const vacate = decide(slotMachine, from.status, {}, { type: 'VACATE' });
  if (!vacate.ok) throw new AppError('slot-not-swappable', `Slot ${from.position} (${from.crc}) is ${from.status}; it cannot give its order away.`);
  from.status = vacate.value as ISortBox['status'];
  from.orderId = null;
  from.assignedAt = null;
  await tx.flush(); // the order leaves its slot before it enters the new one (unique index)
  to.status = assign.value as ISortBox['status'];
  to.orderId = item.orderId;
  to.assignedAt = now;
  item.sortBoxId = to.id;
  item.crc = to.crc;
  await tx.flush();
  const dto = toItemDto(item, to, line);
  for (const e of d.emits) emit(e, { item: dto, from: toSortBoxDto(from), to: toSortBoxDto(to) });
  return dto;
}
