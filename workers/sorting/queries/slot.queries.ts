import { query } from '../../../shared/db/named-sql';
import type { ISortBoxItem } from '../../../shared/db/entities';
import type { SlotStatus } from '../../../shared/domain/slot-choice';
import { recordCtes, type RecordParams } from './command.queries';

/* The shipper's release of a slot (workers/sorting/use-cases/release-slot.use-case.ts). */

/** A pending item of the slot with its order line's figures (JSON: dates are ISO strings). */
export interface PendingItemJson {
  id: number;
  wallId: number;
  status: ISortBoxItem['status'];
  units: number;
  confirmedUnits: number;
  orderId: number;
  orderItemId: number;
  sku: string;
  barcode: string;
  barcodeInputMethod: ISortBoxItem['barcodeInputMethod'];
  userId: number;
  color: string;
  createdAt: string;
  confirmedAt: string | null;
  cancelledAt: string | null;
  qty: number;
  confirmedQty: number;
  pendingQty: number;
}

export interface SlotReadRow {
  id: number;
  wallId: number;
  serialNumber: string;
  crc: string;
  position: number;
  status: SlotStatus;
  orderId: number | null;
  /** Its pending items, oldest first, with their order lines (locked). */
  pending: PendingItemJson[];
}

/** The slot a barcode names on this wall, with its pending items and their lines, locked. */
export const slotRead = query<{ clientId: number; wallId: number; crc: string }, SlotReadRow>('slot-read', `
with slot as (
  select id, wall_id, serial_number, crc, position, status, order_id from sort_box
   where client_id = :clientId and wall_id = :wallId and crc = :crc
), pending as (
  select i.* from sort_box_item i where i.sort_box_id = (select id from slot) and i.status = 'PendingConfirmation'
), lines as (
  select oi.id, oi.qty, oi.confirmed_qty, oi.pending_qty from order_item oi where oi.id in (select order_item_id from pending) for update
)
select slot.id, slot.wall_id as "wallId", slot.serial_number as "serialNumber", slot.crc, slot.position, slot.status, slot.order_id as "orderId",
       coalesce((select json_agg(json_build_object(
                   'id', p.id, 'wallId', p.wall_id, 'status', p.status, 'units', p.units, 'confirmedUnits', p.confirmed_units,
                   'orderId', p.order_id, 'orderItemId', p.order_item_id, 'sku', p.sku, 'barcode', p.barcode,
                   'barcodeInputMethod', p.barcode_input_method, 'userId', p.user_id, 'color', p.color, 'createdAt', p.created_at,
                   'confirmedAt', p.confirmed_at, 'cancelledAt', p.cancelled_at,
                   'qty', l.qty, 'confirmedQty', l.confirmed_qty, 'pendingQty', l.pending_qty) order by p.id)
                   from pending p join lines l on l.id = p.order_item_id), '[]') as pending
  from slot`);

/** The release's writes and the record: pending items cancelled, their units back to their lines, the slot emptied. */
export const releaseWrite = query<
  { slotId: number; slotStatus: string; cancelledIds: number[]; itemStatus: string; lineIds: number[]; lineUnits: number[] } & RecordParams
>('release-write', `
with items as (
  update sort_box_item set status = :itemStatus, cancelled_at = :now::timestamptz where id = any(:cancelledIds::int[]) returning 1
), lines as (
  update order_item oi set pending_qty = oi.pending_qty - d.units
    from unnest(:lineIds::int[], :lineUnits::int[]) as d (id, units)
   where oi.id = d.id
  returning 1
), slot as (
  update sort_box set status = :slotStatus, order_id = null, assigned_at = null where id = :slotId returning 1
), ${recordCtes('true')}
select 1`);
