import { AppError } from '../../../shared/errors/app-error';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import type { ISortBox } from '../../../shared/db/entities';
import { decide } from '../../../machines/decide';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { slotMachine } from '../../../machines/slot.machine';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { itemForActor, lockLine, touchCallerSession, updateLine } from '../item-access';
import type { WallCommandContext } from '../wall-command';

/** Checks the scanned slot barcode, if one was sent, against the item's own slot. */
function assertRightSlot(barcode: string | null, slot: ISortBox): void {
  if (barcode === null) return;
  const parsed = parseSlotBarcode(barcode);
  if (parsed?.kind === 'shipper') {
    throw new AppError('shipper-barcode-not-accepted', `'${barcode.trim()}' is the shipper barcode on the back of a slot; scan the sorter barcode A-${slot.crc} on the front.`);
  }
  if (!parsed) {
    throw new AppError('wrong-slot', `'${barcode.trim()}' is not a slot barcode; scan the sorter barcode A-${slot.crc} of slot ${slot.position}.`);
  }
  if (parsed.crc !== slot.crc) {
    throw new AppError('wrong-slot', `Wrong slot: this unit goes into slot ${slot.position} (A-${slot.crc}), you scanned A-${parsed.crc}. The item stays pending.`);
  }
}

/**
 * PATCH /sort-box-items/{id}/confirm (contract 7). Units may not exceed what the order line still
 * needs beyond other pending scans; when every unit of the order is confirmed the slot is Complete.
 */
export async function confirmItem(ctx: WallCommandContext, cmd: CommandPayloads['item.confirm'], idleTimeoutMs: number): Promise<SortBoxItemDto> {
  const { tx, now, emit } = ctx;
  const { item, slot } = await itemForActor(tx, cmd);
  const line = await lockLine(tx, item.orderItemId);
  if (item.status === 'PendingConfirmation') assertRightSlot(cmd.barcode, slot);
  const remainingUnits = line.qty - line.confirmedQty - (line.pendingQty - item.units);
  const d = decide(sortBoxItemMachine, item.status, {}, { type: 'CONFIRM', units: cmd.units, remainingUnits });
  if (!d.ok) {
    const detail =
      d.code === 'units-exceed-remaining'
        ? `Order ${item.orderId} needs ${Math.max(remainingUnits, 0)} more unit${remainingUnits === 1 ? '' : 's'} of SKU '${item.sku}' (other scans pending included); you confirmed ${cmd.units}.`
        : d.code === 'item-already-confirmed'
          ? `Sort box item ${item.id} was already confirmed${item.confirmedAt ? ` at ${item.confirmedAt.toISOString()}` : ''}.`
          : d.code === 'item-already-cancelled'
            ? `Sort box item ${item.id} was cancelled; scan the unit again.`
            : d.detail ?? d.code;
    throw new AppError(d.code as 'units-exceed-remaining', detail);
  }
  await touchCallerSession(tx, item.wallId, cmd.userId, now, idleTimeoutMs);
  item.status = 'Confirmed';
  item.confirmedUnits = cmd.units;
  item.confirmedAt = now;
  const after = await updateLine(tx, item.orderItemId, cmd.units, -item.units);
  const dto = toItemDto(item, slot, after);
  for (const e of d.emits) emit(e, { item: dto, sortBox: toSortBoxDto(slot) });

  const [{ open }] = await tx.execute<{ open: string }[]>(
    'select count(*) as open from order_item where client_id = ? and order_id = ? and confirmed_qty < qty',
    [item.clientId, item.orderId],
  );
  if (Number(open) === 0 && slot.status === 'Sorting') {
    const s = decide(slotMachine, slot.status, {}, { type: 'COMPLETE' });
    if (s.ok) {
      slot.status = s.value as ISortBox['status'];
      for (const e of s.emits) emit(e, { sortBox: toSortBoxDto(slot), orderId: item.orderId });
    }
  }
  return dto;
}
