import { query } from '../../../../shared/db/named-sql';
import type { ISortBox, ISorterSession, IWall } from '../../../../shared/db/entities';
import type { ItemFields, LineFigures } from '../../../../shared/dto/sorting.mappers';

/*
 * What hubs poll every few seconds on every wall (GET /walls/{id}, GET /walls/{id}/pending-items):
 * one plain statement each, every list built as JSON in PostgreSQL, every part read through an index
 * keyed by the wall (slots by position, connected sessions, the partial index of pending items), so
 * the cost is bounded by the wall's own rows whatever the size of the history or the statistics.
 */

/** A pending item with its slot, its order line and its sorter's name (JSON: dates are ISO strings). */
export type PendingItemRow = ItemFields & LineFigures & { crc: string; position: number; userName: string };

// The wall's scans waiting for confirmation, oldest first; `wall` is the SQL expression of the wall id.
const pendingItemsJson = (wall: string) => `
coalesce((
  select json_agg(json_build_object(
           'id', i.id, 'wallId', i.wall_id, 'status', i.status, 'units', i.units, 'confirmedUnits', i.confirmed_units,
           'orderId', i.order_id, 'sku', i.sku, 'barcode', i.barcode, 'barcodeInputMethod', i.barcode_input_method,
           'userId', i.user_id, 'color', i.color, 'createdAt', i.created_at, 'confirmedAt', i.confirmed_at, 'cancelledAt', i.cancelled_at,
           'requiresSerial', i.requires_serial, 'serial', i.serial,
           'qty', l.qty, 'confirmedQty', l.confirmed_qty, 'pendingQty', l.pending_qty,
           'crc', coalesce(b.crc, i.crc), 'position', coalesce(b.position, 0),
           'userName', e.first_name || ' ' || e.last_name) order by i.created_at, i.id)
    from sort_box_item i
    join order_item l on l.id = i.order_item_id
    join employee e on e.id = i.user_id
    left join sort_box b on b.id = i.sort_box_id
   where i.wall_id = ${wall} and i.status = 'PendingConfirmation'), '[]')`;

export interface WallViewRow {
  wall: IWall;
  /** The wall's printing fields (docs/api.md §12): no row of wall_printer is no printer, autoPrint false. */
  printerId: number | null;
  autoPrint: boolean;
  slots: Pick<ISortBox, 'id' | 'wallId' | 'serialNumber' | 'crc' | 'position' | 'status' | 'orderId'>[];
  sessions: (ISorterSession & { userName: string })[];
  pending: PendingItemRow[];
}

/**
 * The wall of the client with its printing fields, its slots by position, its connected sessions
 * (oldest first) and its pending items: the whole answer of GET /walls/{id} in one round trip.
 */
export const wallView = query<{ clientId: number; wallId: number }, WallViewRow>('wall-view', `
select p.printer_id as "printerId", coalesce(p.auto_print, false) as "autoPrint",
       json_build_object('id', w.id, 'clientId', w.client_id, 'name', w.name, 'isActive', w.is_active, 'maxSorters', w.max_sorters,
         'warehouseId', w.warehouse_id, 'workflow', w.workflow, 'flowDirection', w.flow_direction,
         'segmentRows', w.segment_rows, 'segmentColumns', w.segment_columns, 'createdAt', w.created_at) as wall,
       coalesce((select json_agg(json_build_object('id', b.id, 'wallId', b.wall_id, 'serialNumber', b.serial_number, 'crc', b.crc,
                                                   'position', b.position, 'status', b.status, 'orderId', b.order_id) order by b.position)
                   from sort_box b where b.wall_id = w.id), '[]') as slots,
       coalesce((select json_agg(json_build_object('id', s.id, 'token', s.token, 'wallId', s.wall_id, 'userId', s.user_id,
                                                   'picklistId', s.picklist_id, 'color', s.color, 'status', s.status,
                                                   'startedAt', s.started_at, 'lastActivityAt', s.last_activity_at, 'expiresAt', s.expires_at,
                                                   'endedAt', s.ended_at, 'endReason', s.end_reason,
                                                   'userName', e.first_name || ' ' || e.last_name) order by s.started_at, s.id)
                   from sorter_session s join employee e on e.id = s.user_id
                  where s.wall_id = w.id and s.status = 'Connected'), '[]') as sessions,
       ${pendingItemsJson('w.id')} as pending
  from wall w
  left join wall_printer p on p.wall_id = w.id
 where w.id = :wallId and w.client_id = :clientId`);

/** Only the pending items of the client's wall; no row when the wall is not the client's. */
export const wallPendingItems = query<{ clientId: number; wallId: number }, { pending: PendingItemRow[] }>('wall-pending-items', `
select ${pendingItemsJson('w.id')} as pending
  from wall w
 where w.id = :wallId and w.client_id = :clientId`);

/** What the hub's header counts (GET /walls/{id}/progress). */
export interface WallProgressRow {
  unitsLeft: number;
  ordersInSlots: number;
  /** The Complete slots, each with when it became Complete (its order's last confirm). */
  complete: { crc: string; position: number; orderId: number; since: string }[];
}

/**
 * The units the orders in the wall's slots still need (ordered minus confirmed; scans waiting count as
 * left), and when each Complete slot became Complete: the last confirm of its order in it, through the
 * (sort_box_id, order_id) index. Bounded by the wall's slots and their orders' lines.
 */
export const wallProgress = query<{ clientId: number; wallId: number }, WallProgressRow>('wall-progress', `
select coalesce((select sum(greatest(l.qty - l.confirmed_qty, 0))
                   from sort_box b join order_item l on l.client_id = b.client_id and l.order_id = b.order_id
                  where b.wall_id = w.id and b.order_id is not null), 0)::int as "unitsLeft",
       (select count(*) from sort_box b where b.wall_id = w.id and b.order_id is not null)::int as "ordersInSlots",
       coalesce((select json_agg(json_build_object('crc', b.crc, 'position', b.position, 'orderId', b.order_id,
                                                   'since', coalesce((select max(i.confirmed_at) from sort_box_item i
                                                                       where i.sort_box_id = b.id and i.order_id = b.order_id and i.status = 'Confirmed'),
                                                                     b.assigned_at)) order by b.position)
                   from sort_box b where b.wall_id = w.id and b.status = 'Complete'), '[]') as complete
  from wall w
 where w.id = :wallId and w.client_id = :clientId`);
