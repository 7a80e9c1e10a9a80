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
import { PreparedSql, runPrepared } from '../prepared-sql';

interface ItemRow {
  id: number;
  wall_id: number;
  status: ISortBoxItem['status'];
  units: number;
  confirmed_units: number;
  order_id: number;
  order_item_id: number;
  sku: string;
  barcode: string;
  barcode_input_method: ISortBoxItem['barcodeInputMethod'];
  user_id: number;
  color: string;
  created_at: Date;
  confirmed_at: Date | null;
  cancelled_at: Date | null;
  item_crc: string;
  slot_id: number | null;
  serial_number: string | null;
  crc: string | null;
  position: number | null;
  slot_status: SlotStatus | null;
  qty: number;
  confirmed_qty: number;
  pending_qty: number;
}

// The item, its slot and its order line, the line locked: another wall's scan may reserve from it.
const ITEM_SQL = new PreparedSql('confirm-item', `
select i.id, i.wall_id, i.status, i.units, i.confirmed_units, i.order_id, i.order_item_id, i.sku, i.barcode,
       i.barcode_input_method, i.user_id, i.color, i.created_at, i.confirmed_at, i.cancelled_at, i.crc as item_crc,
       sb.id as slot_id, sb.serial_number, sb.crc, sb.position, sb.status as slot_status, oi.qty, oi.confirmed_qty, oi.pending_qty
  from sort_box_item i
  join order_item oi on oi.id = i.order_item_id
  left join sort_box sb on sb.id = i.sort_box_id
 where i.id = ? and i.client_id = ? and i.wall_id = ?
   for update of oi`);

// The confirmation's writes in one statement; answers the line's new figures and whether any line
// of the order still waits for units. A confirm of N units makes the item hold N (docs/api.md §7):
// units = confirmed_units = N, and the line trades the item's pending units for N confirmed ones.
const CONFIRM_SQL = new PreparedSql('confirm-write', `
with item as (
  update sort_box_item set status = 'Confirmed', units = ?, confirmed_units = ?, confirmed_at = ? where id = ? returning 1
), line as (
  update order_item set confirmed_qty = confirmed_qty + ?, pending_qty = pending_qty - ? where id = ?
  returning qty, confirmed_qty, pending_qty
), session as (
  update sorter_session set last_activity_at = ?, expires_at = ? where wall_id = ? and user_id = ? and status = 'Connected' returning 1
)
select line.qty, line.confirmed_qty, line.pending_qty,
       line.confirmed_qty < line.qty
       or exists (select 1 from order_item o where o.client_id = ? and o.order_id = ? and o.id <> ? and o.confirmed_qty < o.qty) as order_open
  from line`);

const COMPLETE_SLOT_SQL = new PreparedSql('confirm-complete-slot', 'update sort_box set status = ? where id = ?');

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
 * With the scan, the floor's busiest command: plain SQL, three round trips.
 */
export async function confirmItem({ tx, now, emit, note }: WallCommandContext, cmd: CommandPayloads['item.confirm'], idleTimeoutMs: number): Promise<SortBoxItemDto> {
  const [row] = await runPrepared<ItemRow>(tx, ITEM_SQL, [cmd.itemId, cmd.clientId, cmd.wallId]);
  if (!row) throw new AppError('not-found', `Sort box item ${cmd.itemId} was not found.`);
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

  const [after] = await runPrepared<{ qty: number; confirmed_qty: number; pending_qty: number; order_open: boolean }>(tx, CONFIRM_SQL, [
    cmd.units, cmd.units, now, row.id,
    cmd.units, row.units, row.order_item_id,
    now, sessionExpiresAt(now, idleTimeoutMs), cmd.wallId, cmd.userId,
    cmd.clientId, row.order_id, row.order_item_id,
  ]);
  const item = {
    id: row.id, wallId: row.wall_id, status: d.value as ISortBoxItem['status'], units: cmd.units, confirmedUnits: cmd.units, orderId: row.order_id,
    sku: row.sku, barcode: row.barcode, barcodeInputMethod: row.barcode_input_method, userId: row.user_id, color: row.color,
    createdAt: row.created_at, confirmedAt: now, cancelledAt: row.cancelled_at,
  };
  const dto = toItemDto(item, slot, { qty: after.qty, confirmedQty: after.confirmed_qty, pendingQty: after.pending_qty });
  // The same SortBox record as everywhere else (one mapper): events must not drop fields.
  const sortBox = () => toSortBoxDto({ id: slot.id, wallId: cmd.wallId, serialNumber: row.serial_number!, crc: slot.crc, position: slot.position, status: slot.status, orderId: row.order_id });
  for (const e of d.emits) emit(e, { item: dto, sortBox: sortBox() });

  if (!after.order_open && slot.status === 'Sorting') {
    const s = decide(slotMachine, slot.status, {}, { type: 'COMPLETE' });
    if (s.ok) {
      await runPrepared(tx, COMPLETE_SLOT_SQL, [s.value, slot.id]);
      slot.status = s.value as SlotStatus;
      for (const e of s.emits) emit(e, { sortBox: sortBox(), orderId: row.order_id });
    }
  }
  return dto;
}
