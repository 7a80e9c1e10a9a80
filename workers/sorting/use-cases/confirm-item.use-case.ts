import { AppError } from '../../../shared/errors/app-error';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import type { ISortBoxItem } from '../../../shared/db/entities';
import type { SlotStatus } from '../../../shared/domain/slot-choice';
import { decide } from '../../../machines/decide';
import { finishedItemCode, sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse, refusalError, type RefusalFacts } from '../../../machines/refusals';
import { slotMachine } from '../../../machines/slot.machine';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { sessionExpiresAt } from '../session-access';
import { assertMayChangeItem } from '../item-access';
import type { WallCommandContext } from '../wall-command';
import { confirmWrite, itemRead, type ItemReadRow } from '../queries/item.queries';

type ItemRow = ItemReadRow & { id: number };

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
  const [read] = await itemRead(db, { itemId: cmd.itemId, clientId: cmd.clientId, wallId: cmd.wallId, sessionToken: null, targetCrc: null });
  if (read.id === null) throw new AppError('not-found', `Sort box item ${cmd.itemId} was not found.`);
  const row = read as ItemRow;
  note({ orderId: row.order_id, crc: row.crc });
  assertMayChangeItem(cmd.itemId, row.user_id, cmd);
  const remainingUnits = row.qty - row.confirmed_qty - (row.pending_qty - row.units);
  const facts: RefusalFacts = {
    item: { id: row.id, orderId: row.order_id, sku: row.sku, crc: row.item_crc, confirmedAt: row.confirmed_at },
    units: cmd.units,
    remainingUnits,
  };
  if (row.slot_id === null) throw refusalError({ code: finishedItemCode(row.status), state: row.status }, { ...facts, slot: null });
  const slot = { id: row.slot_id, crc: row.crc!, position: row.position!, status: row.slot_status! };
  if (row.status === 'PendingConfirmation') assertRightSlot(cmd.barcode, slot);
  const d = decideOrRefuse(sortBoxItemMachine, row.status, {}, { type: 'CONFIRM', units: cmd.units, remainingUnits }, { ...facts, slot });

  // The line is locked: its figures after the write are known now.
  const after = { qty: row.qty, confirmedQty: row.confirmed_qty + cmd.units, pendingQty: row.pending_qty - row.units };
  const orderOpen = after.confirmedQty < after.qty || row.other_lines_open;
  const item = {
    id: row.id, wallId: row.wall_id, status: d.value as ISortBoxItem['status'], units: cmd.units, confirmedUnits: cmd.units, orderId: row.order_id,
    sku: row.sku, barcode: row.barcode, barcodeInputMethod: row.barcode_input_method, userId: row.user_id, color: row.color,
    createdAt: row.created_at, confirmedAt: now, cancelledAt: row.cancelled_at,
  };
  const dto = toItemDto(item, slot, after);
  // The same SortBox record as everywhere else (one mapper): events must not drop fields.
  const sortBox = () => toSortBoxDto({ id: slot.id, wallId: cmd.wallId, serialNumber: row.serial_number!, crc: slot.crc, position: slot.position, status: slot.status, orderId: row.order_id });
  for (const e of d.emits) emit(e, { item: dto, sortBox: sortBox() });

  let completeSlot = false;
  if (!orderOpen && slot.status === 'Sorting') {
    const s = decide(slotMachine, slot.status, {}, { type: 'COMPLETE' });
    if (s.ok) {
      completeSlot = true;
      slot.status = s.value as SlotStatus;
      for (const e of s.emits) emit(e, { sortBox: sortBox(), orderId: row.order_id });
    }
  }
  await confirmWrite(db, {
    ...ctx.record(dto),
    itemId: row.id, status: item.status, units: cmd.units, itemUnits: row.units, orderItemId: row.order_item_id,
    userId: cmd.userId, expiresAt: sessionExpiresAt(now, idleTimeoutMs), slotId: slot.id, completeSlot, slotStatus: slot.status,
  });
  return dto;
}
