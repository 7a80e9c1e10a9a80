import { AppError } from '../../shared/errors/app-error';
import type { ISortBox, ISortBoxItem, Role } from '../../shared/db/entities';
import type { LineFigures } from '../../shared/dto/sorting.mappers';
import { isOwnerOrManager } from '../../shared/auth/roles';
import type { ItemReadRow } from './queries/item.queries';
import { finishedItemCode } from '../../machines/sort-box-item.machine';
import { refusalError } from '../../machines/refusals';

/** Only the sorter who scanned an item, or a Manager, may confirm, cancel or swap it. */
export function assertMayChangeItem(itemId: number, scannedBy: number, actor: { userId: number; roles: readonly Role[] }): void {
  if (!isOwnerOrManager(scannedBy, actor)) {
    throw new AppError('forbidden', `Sort box item ${itemId} was scanned by another sorter; only they or a Manager may change it.`);
  }
}

export type ItemFacts = Pick<
  ISortBoxItem,
  'id' | 'wallId' | 'status' | 'units' | 'confirmedUnits' | 'orderId' | 'orderItemId' | 'sku' | 'barcode' | 'barcodeInputMethod' | 'userId' | 'color' | 'createdAt' | 'confirmedAt' | 'cancelledAt'
>;
export type SlotFacts = Pick<ISortBox, 'id' | 'wallId' | 'serialNumber' | 'crc' | 'position' | 'status' | 'orderId'>;

/** The item of itemRead, if it is this client's and on this wall, and the caller may act on it (docs/api.md §7). */
export function itemForActor(
  row: ItemReadRow,
  cmd: { itemId: number; userId: number; roles: Role[] },
): { item: ItemFacts; slot: SlotFacts; line: LineFigures } {
  if (row.id === null) throw new AppError('not-found', `Sort box item ${cmd.itemId} was not found.`);
  assertMayChangeItem(row.id, row.user_id, cmd);
  const item: ItemFacts = {
    id: row.id, wallId: row.wall_id, status: row.status, units: row.units, confirmedUnits: row.confirmed_units, orderId: row.order_id,
    orderItemId: row.order_item_id, sku: row.sku, barcode: row.barcode, barcodeInputMethod: row.barcode_input_method, userId: row.user_id,
    color: row.color, createdAt: row.created_at, confirmedAt: row.confirmed_at, cancelledAt: row.cancelled_at,
  };
  // Only a finished item can have lost its slot (a slot with pending items cannot be detached).
  if (row.slot_id === null) throw refusalError({ code: finishedItemCode(item.status), state: item.status }, { item: { ...item, crc: row.item_crc }, slot: null });
  const slot: SlotFacts = {
    id: row.slot_id, wallId: row.wall_id, serialNumber: row.serial_number!, crc: row.crc!, position: row.position!, status: row.slot_status!, orderId: row.slot_order_id,
  };
  return { item, slot, line: { qty: row.qty, confirmedQty: row.confirmed_qty, pendingQty: row.pending_qty } };
}
