import { query } from '../../../shared/db/named-sql';
import type { ISortBoxItem } from '../../../shared/db/entities';
import type { SlotStatus } from '../../../shared/domain/slot-choice';
import { recordCtes, type RecordParams } from './command.queries';
import { sessionColumns, type SessionJson } from './session.queries';

/* Confirm, cancel and swap of one item (workers/sorting/use-cases/): one read and one write each, under the wall lock. */

export interface ItemReadRow {
  /** null: no such item of this client on this wall. */
  id: number | null;
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
  /** The item's slot; null once detached. */
  slot_id: number | null;
  serial_number: string | null;
  crc: string | null;
  position: number | null;
  slot_status: SlotStatus | null;
  slot_order_id: number | null;
  /** The order line, locked: another wall's scan may reserve from it. */
  qty: number;
  confirmed_qty: number;
  pending_qty: number;
  /** Live (pending or confirmed) items of the same order in the same slot, this one aside. */
  others_in_slot: number;
  /** Whether another line of the order still waits for units. */
  other_lines_open: boolean;
  /** The session the swap's token names on this wall (JSON: dates are strings), when a token was given. */
  session: SessionJson | null;
  /** The slot the swap's barcode names on this wall, when a crc was given. */
  target: { id: number; wallId: number; serialNumber: string; crc: string; position: number; status: SlotStatus; orderId: number | null } | null;
}

/**
 * The item with its slot and its order line (locked), and what confirm, cancel and swap decide on:
 * the other live items of its order in its slot, the order's other open lines, and for a swap the
 * session of its token and the target slot. Always one row (item columns null when it does not exist).
 */
export const itemRead = query<
  { itemId: number; clientId: number; wallId: number; sessionToken: string | null; targetCrc: string | null },
  ItemReadRow
>('item-read', `
with line as (
  select oi.id, oi.qty, oi.confirmed_qty, oi.pending_qty from order_item oi
   where oi.id = (select i.order_item_id from sort_box_item i where i.id = :itemId and i.client_id = :clientId and i.wall_id = :wallId)
     for update
)
select i.id, i.wall_id, i.status, i.units, i.confirmed_units, i.order_id, i.order_item_id, i.sku, i.barcode,
       i.barcode_input_method, i.user_id, i.color, i.created_at, i.confirmed_at, i.cancelled_at, i.crc as item_crc,
       sb.id as slot_id, sb.serial_number, sb.crc, sb.position, sb.status as slot_status, sb.order_id as slot_order_id,
       line.qty, line.confirmed_qty, line.pending_qty,
       (select count(*)::int from sort_box_item o
         where o.sort_box_id = i.sort_box_id and o.order_id = i.order_id and o.id <> i.id and o.status <> 'Cancelled') as others_in_slot,
       exists (select 1 from order_item o
                where o.client_id = i.client_id and o.order_id = i.order_id and o.id <> i.order_item_id and o.confirmed_qty < o.qty) as other_lines_open,
       (select row_to_json(sess) from (select ${sessionColumns('s')} from sorter_session s
          where s.token = :sessionToken::text and s.client_id = :clientId and s.wall_id = :wallId) sess) as session,
       (select row_to_json(ts) from (select t.id, t.wall_id as "wallId", t.serial_number as "serialNumber", t.crc, t.position, t.status, t.order_id as "orderId"
          from sort_box t where t.client_id = :clientId and t.wall_id = :wallId and t.crc = :targetCrc::text) ts) as target
  from (values (1)) as one (n)
  left join sort_box_item i on i.id = :itemId and i.client_id = :clientId and i.wall_id = :wallId
  left join line on line.id = i.order_item_id
  left join sort_box sb on sb.id = i.sort_box_id`);

/** Activity of the caller's connected session on the wall, if any (confirm, cancel). */
const TOUCH_CALLER = `touched as (
  update sorter_session set last_activity_at = :now::timestamptz, expires_at = :expiresAt
   where wall_id = :wallId and user_id = :userId and status = 'Connected'
  returning 1
)`;

/**
 * The confirmation's writes and the command's record in one statement. A confirm of N units makes
 * the item hold N (docs/api.md §7): units = confirmed_units = N, and the line trades the item's
 * pending units for N confirmed ones; the slot becomes Complete when the machine said so.
 */
export const confirmWrite = query<
  { itemId: number; status: string; units: number; itemUnits: number; orderItemId: number; userId: number; expiresAt: Date; slotId: number; completeSlot: boolean; slotStatus: string } & RecordParams
>('confirm-write', `
with item as (
  update sort_box_item set status = :status, units = :units, confirmed_units = :units, confirmed_at = :now::timestamptz where id = :itemId returning 1
), line as (
  update order_item set confirmed_qty = confirmed_qty + :units, pending_qty = pending_qty - :itemUnits where id = :orderItemId returning 1
), ${TOUCH_CALLER}, slot as (
  update sort_box set status = :slotStatus where id = :slotId and :completeSlot::boolean returning 1
), ${recordCtes('true')}
select 1`);

/** The cancellation's writes and the record: the unit goes back to the line; the slot is vacated when the machine said so. */
export const cancelWrite = query<
  { itemId: number; status: string; itemUnits: number; orderItemId: number; userId: number; expiresAt: Date; slotId: number; vacateSlot: boolean; slotStatus: string } & RecordParams
>('cancel-write', `
with item as (
  update sort_box_item set status = :status, cancelled_at = :now::timestamptz where id = :itemId returning 1
), line as (
  update order_item set pending_qty = pending_qty - :itemUnits where id = :orderItemId returning 1
), ${TOUCH_CALLER}, slot as (
  update sort_box set status = :slotStatus, order_id = null, assigned_at = null where id = :slotId and :vacateSlot::boolean returning 1
), ${recordCtes('true')}
select 1`);

/**
 * The swap's writes and the record: the order leaves its slot before it enters the target (the unique
 * index on a slot's order: `moved` reads `vacated`, which makes it run first), the item follows.
 * `moved` 0 would mean the target was not updated.
 */
export const swapWrite = query<
  { fromId: number; fromStatus: string; toId: number; toStatus: string; toCrc: string; orderId: number; itemId: number; sessionId: number; expiresAt: Date } & RecordParams,
  { moved: number }
>('swap-write', `
with vacated as (
  update sort_box set status = :fromStatus, order_id = null, assigned_at = null where id = :fromId returning 1
), moved as (
  update sort_box set status = :toStatus, order_id = :orderId, assigned_at = :now::timestamptz
   where id = :toId and (select count(*) from vacated) = 1
  returning 1
), item as (
  update sort_box_item set sort_box_id = :toId, crc = :toCrc where id = :itemId returning 1
), touched as (
  update sorter_session set last_activity_at = :now::timestamptz, expires_at = :expiresAt where id = :sessionId returning 1
), ${recordCtes('true')}
select (select count(*) from moved)::int as moved`);

/** A swap onto the item's own slot changes nothing but the session's activity; with the record. */
export const touchSessionWrite = query<{ sessionId: number; expiresAt: Date } & RecordParams>('touch-session-write', `
with touched as (
  update sorter_session set last_activity_at = :now::timestamptz, expires_at = :expiresAt where id = :sessionId returning 1
), ${recordCtes('true')}
select 1`);
