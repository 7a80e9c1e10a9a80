import { query } from '../../../shared/db/named-sql';

/* The wall actor's state in one round trip (workers/sorting/actor/wall-actor.ts). */

/** Columns of a session as JSON, camelCase (`sorter_session <alias>`). */
export function sessionJsonColumns(a: string): string {
  return `${a}.id, ${a}.token, ${a}.client_id as "clientId", ${a}.wall_id as "wallId", ${a}.user_id as "userId", ${a}.picklist_id as "picklistId",
       ${a}.color, ${a}.status, ${a}.started_at as "startedAt", ${a}.last_activity_at as "lastActivityAt", ${a}.expires_at as "expiresAt",
       ${a}.ended_at as "endedAt", ${a}.end_reason as "endReason"`;
}

/** Columns of an item as JSON, camelCase (`sort_box_item <alias>`). */
export function itemJsonColumns(a: string): string {
  return `${a}.id, ${a}.wall_id as "wallId", ${a}.sort_box_id as "sortBoxId", ${a}.crc, ${a}.order_id as "orderId", ${a}.order_item_id as "orderItemId",
       ${a}.product_id as "productId", ${a}.sku, ${a}.barcode, ${a}.barcode_input_method as "barcodeInputMethod", ${a}.user_id as "userId",
       ${a}.session_id as "sessionId", ${a}.color, ${a}.units, ${a}.confirmed_units as "confirmedUnits", ${a}.status, ${a}.created_at as "createdAt",
       ${a}.confirmed_at as "confirmedAt", ${a}.cancelled_at as "cancelledAt", ${a}.requires_serial as "requiresSerial", ${a}.serial`;
}

/** An order with its lines and picklists as JSON (`orders <alias>`). */
export function orderJsonColumns(a: string): string {
  return `${a}.id, ${a}.warehouse_id as "warehouseId", ${a}.priority, ${a}.order_date as "orderDate", ${a}.status, ${a}.is_drop_ship as "isDropShip",
       (select json_agg(json_build_object('id', l.id, 'orderId', l.order_id, 'sku', l.sku, 'qty', l.qty, 'confirmedQty', l.confirmed_qty, 'pendingQty', l.pending_qty) order by l.id)
          from order_item l where l.client_id = ${a}.client_id and l.order_id = ${a}.id) as lines,
       coalesce((select json_agg(po.picklist_id order by po.picklist_id) from picklist_order po
                  where po.client_id = ${a}.client_id and po.order_id = ${a}.id), '[]') as "picklistIds"`;
}

/** The state as JSON (dates are ISO strings), with ids taken ahead for the first scans and connects. */
export interface WallStateJson {
  wall: Record<string, unknown> | null;
  slots: Record<string, unknown>[];
  sessions: Record<string, unknown>[];
  items: Record<string, unknown>[];
  /** Per slot holding an order: its confirmed items there. */
  confirmed: { slotId: number; orderId: number; count: number }[];
  orders: Record<string, unknown>[];
  itemIds: number[];
  sessionIds: number[];
}

/**
 * Everything the actor holds, bounded by the wall's own rows whatever the planner knows: the wall by
 * its key; its slots (by wall and position); its connected sessions (the partial index of a wall's
 * connected users); its pending items (the partial index of a wall's pending items); per slot, how
 * many confirmed items the order it holds has there (counted by slot and order: the items themselves
 * stay in the database) and the order by its key with its lines and picklists. Every join by key goes through a `lateral … offset 0`, so the planner cannot turn it
 * around.
 */
export const loadWall = query<{ clientId: number; wallId: number; itemIds: number; sessionIds: number }, { state: WallStateJson }>('wall-load', `
select json_build_object(
  'wall', (select row_to_json(w) from (
             select id, client_id as "clientId", name, is_active as "isActive", max_sorters as "maxSorters", warehouse_id as "warehouseId",
                    workflow, flow_direction as "flowDirection", segment_rows as "segmentRows", segment_columns as "segmentColumns",
                    created_at as "createdAt", version
               from wall where id = :wallId and client_id = :clientId) w),
  'slots', coalesce((select json_agg(s) from (
             select id, wall_id as "wallId", serial_number as "serialNumber", crc, position, status, order_id as "orderId", assigned_at as "assignedAt"
               from sort_box where wall_id = :wallId) s), '[]'),
  'sessions', coalesce((select json_agg(c) from (
             select ${sessionJsonColumns('s')} from sorter_session s where s.wall_id = :wallId and s.status = 'Connected') c), '[]'),
  'items', coalesce((select json_agg(i) from (
             select ${itemJsonColumns('p')} from sort_box_item p where p.wall_id = :wallId and p.status = 'PendingConfirmation') i), '[]'),
  'confirmed', coalesce((select json_agg(json_build_object('slotId', sb.id, 'orderId', sb.order_id, 'count', c.count)) from sort_box sb
             cross join lateral (select count(*) as count from sort_box_item c
                                  where c.sort_box_id = sb.id and c.order_id = sb.order_id and c.status = 'Confirmed' offset 0) c
            where sb.wall_id = :wallId and sb.order_id is not null and c.count > 0), '[]'),
  'orders', coalesce((select json_agg(o) from sort_box sb
             cross join lateral (select ${orderJsonColumns('x')} from orders x where x.client_id = sb.client_id and x.id = sb.order_id offset 0) o
            where sb.wall_id = :wallId and sb.order_id is not null), '[]'),
  'itemIds', (select json_agg(nextval('sort_box_item_id_seq')) from generate_series(1, :itemIds::int)),
  'sessionIds', (select json_agg(nextval('sorter_session_id_seq')) from generate_series(1, :sessionIds::int))
) as state`);

/** Every table a command reads or writes. */
const COMMAND_TABLES = ['wall', 'sort_box', 'sorter_session', 'sort_box_item', 'orders', 'order_item', 'picklist_order', 'product_code', 'product', 'outbox_event', 'applied_command'];

/**
 * Run once on each connection the commands' pool keeps open, when the sorting worker starts: planning
 * it opens every table a command reads or writes with its indexes, so the backend's catalog caches are
 * filled before the first command instead of during it. Returns nothing. One branch per table: as one
 * eleven-way join of the same tables, its planning searched every join order (100–220 ms of a backend's
 * CPU per connection, against 2–7 ms, measured on a new connection each).
 */
export const warmActorConnection = query<Record<string, never>, never>(
  'warm-actor-connection',
  COMMAND_TABLES.map((table) => `select 1 from ${table} where false`).join('\nunion all\n'),
);
