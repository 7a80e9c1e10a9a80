import { AppError } from '../../../shared/errors/app-error';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse, type RefusalFacts } from '../../../machines/refusals';
import { slotMachine } from '../../../machines/slot.machine';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { touchCaller } from '../session-access';
import { itemOfCommand } from '../item-access';
import type { CommandContext } from '../actor/wall-actor';
import type { ItemRow, SlotRow } from '../actor/wall-state';

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
 * With the scan, the floor's busiest command: decided in the wall's memory, no read.
 */
export async function confirmItem(ctx: CommandContext, cmd: CommandPayloads['item.confirm']): Promise<SortBoxItemDto> {
  const { state, changes, now, note } = ctx;
  // A finished item whose slot was detached since is refused here, with the words of its state.
  const { item: found, slot, line } = await itemOfCommand(ctx, cmd, (i, crc) => note({ orderId: i.orderId, crc }));
  // A finished item of an order the wall no longer holds: its machine refuses whatever the figures.
  const remainingUnits = line ? line.qty - line.confirmedQty - (line.pendingQty - found.units) : 0;
  const facts: RefusalFacts = {
    item: { id: found.id, orderId: found.orderId, sku: found.sku, crc: found.crc, confirmedAt: found.confirmedAt },
    units: cmd.units,
    remainingUnits,
    slot,
  };
  if (found.status === 'PendingConfirmation') assertRightSlot(cmd.barcode, slot);
  const d = decideOrRefuse(sortBoxItemMachine, found.status, {}, { type: 'CONFIRM', units: cmd.units, remainingUnits }, facts);
  if (!line) throw new Error(`item ${found.id}: confirmed from ${found.status} without its order line`);

  const after = { ...line, confirmedQty: line.confirmedQty + cmd.units, pendingQty: line.pendingQty - found.units };
  changes.setLine(after);
  const order = state.orders.get(found.orderId);
  const otherLinesOpen = (order?.lines ?? []).some((l) => l.id !== line.id && l.confirmedQty < l.qty);
  const orderOpen = after.confirmedQty < after.qty || otherLinesOpen;
  const item: ItemRow = { ...found, status: d.value as ItemRow['status'], units: cmd.units, confirmedUnits: cmd.units, confirmedAt: now };
  changes.setItem(item);
  touchCaller(ctx, cmd.userId);
  const dto = toItemDto(item, slot, after);
  // The same SortBox record as everywhere else (one mapper): events must not drop fields.
  for (const e of d.emits) changes.emit(e, { item: dto, sortBox: toSortBoxDto({ ...slot, orderId: found.orderId }) });

  if (!orderOpen && slot.status === 'Sorting') {
    const s = decide(slotMachine, slot.status, {}, { type: 'COMPLETE' });
    if (s.ok) {
      const complete: SlotRow = { ...slot, status: s.value as SlotRow['status'] };
      changes.setSlot(complete);
      for (const e of s.emits) changes.emit(e, { sortBox: toSortBoxDto({ ...complete, orderId: found.orderId }), orderId: found.orderId });
    }
  }
  return dto;
}
