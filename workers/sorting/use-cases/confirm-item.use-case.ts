import { AppError } from '../../../shared/errors/app-error';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { sortBoxItemMachine, type SerialCheck } from '../../../machines/sort-box-item.machine';
import { serialOf, serialProblem } from '../../../shared/domain/serials';
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
 * The confirm's serial number for the machine to decide on (docs/api.md "Serial numbers"). Only a
 * pending item of a product that requires serials, confirmed one unit within what remains, with a
 * well-formed serial, costs a read: where that serial was sorted before. A product without serials
 * costs nothing. Two walls confirming one serial at once both find it free; the unique index lets one
 * write stand, and the other's confirm is decided again and finds it taken.
 */
async function checkSerial(ctx: CommandContext, item: ItemRow, units: number, remainingUnits: number, serial: string | null, facts: RefusalFacts): Promise<SerialCheck> {
  if (!item.requiresSerial) return serial === null ? 'none' : 'unexpected';
  if (units !== 1) return 'several-units';
  if (serial === null) return 'missing';
  const problem = serialProblem(serial, item.barcode);
  if (problem) {
    facts.serial = { value: serial, problem };
    return 'malformed';
  }
  if (item.status !== 'PendingConfirmation' || units > remainingUnits) return 'accepted'; // refused whatever the serial
  const sortedIn = await ctx.reads.serialHolder(item.productId, serial);
  if (!sortedIn) return 'accepted';
  facts.serial = { value: serial, sortedIn };
  return 'taken';
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
  const serial = serialOf(cmd.serial);
  const facts: RefusalFacts = {
    item: { id: found.id, orderId: found.orderId, sku: found.sku, crc: found.crc, confirmedAt: found.confirmedAt },
    units: cmd.units,
    remainingUnits,
    slot,
    serial: { value: serial },
  };
  if (found.status === 'PendingConfirmation') assertRightSlot(cmd.barcode, slot);
  const serialCheck = await checkSerial(ctx, found, cmd.units, remainingUnits, serial, facts);
  const d = decideOrRefuse(sortBoxItemMachine, found.status, {}, { type: 'CONFIRM', units: cmd.units, remainingUnits, serial: serialCheck }, facts);
  if (!line) throw new Error(`item ${found.id}: confirmed from ${found.status} without its order line`);

  const after = { ...line, confirmedQty: line.confirmedQty + cmd.units, pendingQty: line.pendingQty - found.units };
  changes.setLine(after);
  const order = state.orders.get(found.orderId);
  const otherLinesOpen = (order?.lines ?? []).some((l) => l.id !== line.id && l.confirmedQty < l.qty);
  const orderOpen = after.confirmedQty < after.qty || otherLinesOpen;
  const item: ItemRow = {
    ...found,
    status: d.value as ItemRow['status'],
    units: cmd.units,
    confirmedUnits: cmd.units,
    confirmedAt: now,
    serial: serialCheck === 'accepted' ? serial : null,
  };
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
