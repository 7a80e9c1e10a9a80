import { AppError } from '../../../shared/errors/app-error';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import type { ISortBoxItem } from '../../../shared/db/entities';
import type { SlotStatus } from '../../../shared/domain/slot-choice';
import { decide } from '../../../machines/decide';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse, type RefusalFacts } from '../../../machines/refusals';
import { slotMachine } from '../../../machines/slot.machine';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { sessionExpiresAt } from '../session-access';
import { itemForActor } from '../item-access';
import type { WallCommandContext } from '../wall-command';
import { confirmWrite, itemRead } from '../queries/item.queries';

/** Checks the scanned slot barcode, if one was sent, against the item's own slot. */
function assertRightSlot(barcode: string | null, slot: { crc: string; position: number }): void {
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
 * PATCH /sort-box-items/{id}/confirm (docs/api.md §7). Units may not exceed what the order line still
 * needs beyond other pending scans; when every unit of the order is confirmed the slot is Complete.
 * With the scan, the floor's busiest command: one read (itemRead, the line locked) and one write with
 * the command's record (confirmWrite).
 */
export async function confirmItem(ctx: WallCommandContext, cmd: CommandPayloads['item.confirm'], idleTimeoutMs: number): Promise<SortBoxItemDto> {
  const { db, now, emit, note } = ctx;
  const [row] = await itemRead(db, { itemId: cmd.itemId, clientId: cmd.clientId, wallId: cmd.wallId, sessionToken: null, targetCrc: null });
  if (row.id !== null) note({ orderId: row.order_id, crc: row.crc });
  // A finished item whose slot was detached since is refused here, with the words of its state.
  const { item: found, slot, line } = itemForActor(row, cmd);
  const remainingUnits = line.qty - line.confirmedQty - (line.pendingQty - found.units);
  const facts: RefusalFacts = {
    item: { id: found.id, orderId: found.orderId, sku: found.sku, crc: row.item_crc, confirmedAt: found.confirmedAt },
    units: cmd.units,
    remainingUnits,
    slot,
  };
  if (found.status === 'PendingConfirmation') assertRightSlot(cmd.barcode, slot);
  const d = decideOrRefuse(sortBoxItemMachine, found.status, {}, { type: 'CONFIRM', units: cmd.units, remainingUnits }, facts);

  // The line is locked: its figures after the write are known now.
  const after = { qty: line.qty, confirmedQty: line.confirmedQty + cmd.units, pendingQty: line.pendingQty - found.units };
  const orderOpen = after.confirmedQty < after.qty || row.other_lines_open;
  const item = { ...found, status: d.value as ISortBoxItem['status'], units: cmd.units, confirmedUnits: cmd.units, confirmedAt: now };
  const dto = toItemDto(item, slot, after);
  // The same SortBox record as everywhere else (one mapper): events must not drop fields.
  const sortBox = () => toSortBoxDto({ ...slot, orderId: found.orderId });
  for (const e of d.emits) emit(e, { item: dto, sortBox: sortBox() });

  let completeSlot = false;
  if (!orderOpen && slot.status === 'Sorting') {
    const s = decide(slotMachine, slot.status, {}, { type: 'COMPLETE' });
    if (s.ok) {
      completeSlot = true;
      slot.status = s.value as SlotStatus;
      for (const e of s.emits) emit(e, { sortBox: sortBox(), orderId: found.orderId });
    }
  }
  await confirmWrite(db, {
    ...ctx.record(dto),
    itemId: item.id, status: item.status, units: cmd.units, itemUnits: found.units, orderItemId: found.orderItemId,
    userId: cmd.userId, expiresAt: sessionExpiresAt(now, idleTimeoutMs), slotId: slot.id, completeSlot, slotStatus: slot.status,
  });
  return dto;
}
