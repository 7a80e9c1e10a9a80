import { query } from '../../../shared/db/named-sql';
import type { ISorterSession } from '../../../shared/db/entities';
import type { OrderPriority } from '../../../shared/domain/priority';
import type { SlotStatus } from '../../../shared/domain/slot-choice';
import { recordCtes, type RecordParams } from './command.queries';

/* The scan (workers/sorting/use-cases/scan-item.use-case.ts): one read and one write under the wall lock. */

/** How many candidates the database preselects, in the same order as the pure rule (chooseOrder decides). */
const CANDIDATE_LIMIT = 20;

/** A candidate line as JSON (dates are ISO strings). */
export interface CandidateJson {
  order_item_id: number;
  order_id: number;
  priority: OrderPriority;
  order_date: string;
  qty: number;
  confirmed_qty: number;
  pending_qty: number;
  slot_id: number | null;
  slot_serial_number: string | null;
  slot_crc: string | null;
  slot_position: number | null;
}

export interface SlotJson {
  id: number;
  serial_number: string;
  crc: string;
  position: number;
  status: SlotStatus;
}

export interface ScanReadRow {
  /** The idempotency record of the sorter's key, when the key was used before. */
  prior_operation: string | null;
  prior_request_hash: string | null;
  prior_body: unknown;
  /** The session the token names on this wall (null: unknown token). */
  session_id: number | null;
  user_id: number;
  picklist_id: number | null;
  color: string;
  status: ISorterSession['status'];
  end_reason: ISorterSession['endReason'];
  ended_at: Date | null;
  /** The product the barcode names (null: not recognized). */
  product_id: number | null;
  sku: string | null;
  /** The id the new item gets (taken now, so the write's events can carry it). */
  item_id: number;
  candidates: CandidateJson[];
  /** The first Empty slot of the wall, read only when no candidate's order sits in a slot already. */
  empty_slot: SlotJson | null;
}

/**
 * Everything a scan decides on, in one round trip: the sorter's idempotency record, the session, the
 * product of the barcode, the candidate lines (lines of the sku that still need units, of unshipped,
 * non-drop-ship orders of the wall's warehouse and the session's picklist, in no slot or in a slot of
 * this wall), and an Empty slot when the chosen order will need one.
 */
export const scanRead = query<
  { clientId: number; wallId: number; warehouseId: number | null; token: string; code: string; idempotencyKey: string | null },
  ScanReadRow
>('scan-read', `
select prior.operation as prior_operation, prior.request_hash as prior_request_hash, prior.body as prior_body,
       s.id as session_id, s.user_id, s.picklist_id, s.color, s.status, s.end_reason, s.ended_at,
       code.product_id, code.sku,
       nextval('sort_box_item_id_seq')::int as item_id,
       coalesce(cand.rows, '[]') as candidates,
       empty.slot as empty_slot
  from (values (1)) as one (n)
  left join idempotency_record prior on prior.client_id = :clientId and prior.idempotency_key = :idempotencyKey::text
  left join sorter_session s on s.token = :token and s.client_id = :clientId and s.wall_id = :wallId
  left join lateral (
    select pc.product_id, p.sku from product_code pc join product p on p.id = pc.product_id
     where pc.client_id = :clientId and pc.code = :code order by pc.kind, pc.product_id limit 1
  ) code on true
  left join lateral (
    select json_agg(c) as rows, bool_or(c.slot_id is not null) as any_in_slot from (
      select oi.id as order_item_id, o.id as order_id, o.priority, o.order_date, oi.qty, oi.confirmed_qty, oi.pending_qty,
             sb.id as slot_id, sb.serial_number as slot_serial_number, sb.crc as slot_crc, sb.position as slot_position
        from (
          -- The sku's open lines first, through their partial index: \`offset 0\` keeps the planner from
          -- starting at the warehouse's orders instead (it cannot know the sku when it plans).
          select oi.id, oi.order_id, oi.qty, oi.confirmed_qty, oi.pending_qty from order_item oi
           where oi.client_id = :clientId and oi.sku = code.sku and oi.qty > oi.confirmed_qty + oi.pending_qty
          offset 0
        ) oi
        join orders o on o.client_id = :clientId and o.id = oi.order_id
        left join sort_box sb on sb.client_id = o.client_id and sb.order_id = o.id
       where o.status = 'Unshipped' and not o.is_drop_ship
         and (:warehouseId::int is null or o.warehouse_id = :warehouseId::int)
         and (s.picklist_id is null or exists (select 1 from picklist_order po
                                                where po.client_id = o.client_id and po.picklist_id = s.picklist_id and po.order_id = o.id))
         and (sb.id is null or (sb.wall_id = :wallId and sb.status = 'Sorting'))
       order by (sb.id is not null) desc, o.priority_rank desc, o.order_date asc, o.id asc
       limit ${CANDIDATE_LIMIT}
    ) c
  ) cand on true
  left join lateral (
    select row_to_json(e) as slot from (
      select id, serial_number, crc, position, status from sort_box
       where wall_id = :wallId and status = 'Empty' and cand.rows is not null and not cand.any_in_slot
       order by position limit 1
    ) e
  ) empty on true`);

export interface ScanWriteParams {
  clientId: number;
  wallId: number;
  now: Date;
  /** The chosen line and the figures it was chosen with: the reservation holds only if nobody changed them since. */
  orderItemId: number;
  qty: number;
  confirmedQty: number;
  pendingQty: number;
  orderId: number;
  slotId: number;
  crc: string;
  /** The slot takes the order (it was Empty) with this status. */
  assignSlot: boolean;
  slotStatus: SlotStatus;
  sessionId: number;
  expiresAt: Date;
  itemId: number;
  productId: number;
  sku: string;
  barcode: string;
  barcodeInputMethod: string;
  userId: number;
  color: string;
  /** The sorter's scoped key, or null; its record stores the answer (`result`). */
  idempotencyKey: string | null;
  requestHash: string;
}

/**
 * The scan's writes and its record in one statement: reserve one unit of the line, let the slot take
 * the order, record the session's activity, create the item, keep the idempotency record, write the
 * outbox events and the applied command. All of it, or nothing when another wall's scan changed the
 * line since it was read (`reserved` 0: the scan chooses again).
 */
export const scanWrite = query<ScanWriteParams & RecordParams, { reserved: number }>('scan-write', `
with line as (
  update order_item set pending_qty = pending_qty + 1
   where id = :orderItemId and qty = :qty and confirmed_qty = :confirmedQty and pending_qty = :pendingQty
  returning id
), slot as (
  update sort_box set status = :slotStatus, order_id = :orderId, assigned_at = :now::timestamptz
   where id = :slotId and :assignSlot::boolean and exists (select 1 from line)
  returning 1
), session as (
  update sorter_session set last_activity_at = :now::timestamptz, expires_at = :expiresAt
   where id = :sessionId and exists (select 1 from line)
  returning 1
), item as (
  insert into sort_box_item (id, client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode,
                             barcode_input_method, user_id, session_id, color, units, confirmed_units, status, created_at)
  select :itemId::int, :clientId::int, :wallId::int, :slotId::int, :crc::text, :orderId::int, line.id, :productId::int, :sku::text, :barcode::text,
         :barcodeInputMethod::text, :userId::int, :sessionId::int, :color::text, 1, 0, 'PendingConfirmation', :now::timestamptz
    from line
  returning 1
), idempotency as (
  insert into idempotency_record (client_id, idempotency_key, operation, request_hash, status, body, created_at)
  select :clientId::int, :idempotencyKey::text, 'item.scan', :requestHash::text, 200, :result::jsonb, :now::timestamptz
    from line where :idempotencyKey::text is not null
  returning 1
), ${recordCtes('exists (select 1 from line)')}
select count(*)::int as reserved from line`);

// Why no order matched, for the no-fulfillable-order detail: the open orders of the scan's scope with the sku.
export const scanWhyNoOrder = query<
  { clientId: number; sku: string; warehouseId: number | null; picklistId: number | null },
  { warehouse_name: string | null; orders: number; needing: number; sorted: number }
>('scan-why-no-order', `
select (select w.name from warehouse w where w.client_id = :clientId and w.id = :warehouseId::int) as warehouse_name,
       count(*)::int as orders,
       count(*) filter (where oi.qty > oi.confirmed_qty + oi.pending_qty)::int as needing,
       count(*) filter (where oi.confirmed_qty >= oi.qty)::int as sorted
  from order_item oi
  join orders o on o.client_id = oi.client_id and o.id = oi.order_id
 where oi.client_id = :clientId and oi.sku = :sku
   and o.status = 'Unshipped' and not o.is_drop_ship
   and (:warehouseId::int is null or o.warehouse_id = :warehouseId::int)
   and (:picklistId::int is null or exists (select 1 from picklist_order po
                                             where po.client_id = o.client_id and po.picklist_id = :picklistId::int and po.order_id = o.id))`);

// The wall's slots, for the no-empty-slot detail.
export const scanSlotCounts = query<{ wallId: number }, { total: number; complete: number }>('scan-slot-counts', `
select count(*)::int as total, count(*) filter (where status = 'Complete')::int as complete from sort_box where wall_id = :wallId`);
