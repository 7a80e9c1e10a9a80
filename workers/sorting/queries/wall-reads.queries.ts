import { query } from '../../../shared/db/named-sql';
import { itemJsonColumns, orderJsonColumns, sessionJsonColumns } from './wall-load.queries';

/*
 * The reads a wall's actor still makes (docs/architecture.md "The wall actor"): only where a rule needs
 * fresh data from outside the wall. Each is bounded by what it touches whatever the statistics say.
 */

/** How many candidates the database preselects, in the same order as the pure rule (chooseOrder decides). */
const CANDIDATE_LIMIT = 4;

/** A barcode's product: by SKU, then UPC, then shadow SKU, then alias (product_code.kind), one index lookup. */
export const productByCode = query<{ clientId: number; code: string }, { product_id: number; sku: string; requires_serial: boolean }>('product-by-code', `
select pc.product_id, p.sku, p.requires_serial from product_code pc join product p on p.id = pc.product_id
 where pc.client_id = :clientId and pc.code = :code order by pc.kind, pc.product_id limit 1`);

/** A candidate line with its order (lines and picklists as the actor holds them). */
export interface CandidateRow {
  order_item_id: number;
  qty: number;
  confirmed_qty: number;
  pending_qty: number;
  /** The order as JSON (dates are ISO strings), as orderJsonColumns gives it. */
  order: Record<string, unknown>;
}

/**
 * The scan's candidates when no order in the wall's slots needs the product (order choice rule 1 then
 * leaves only orders in no slot): the sku's open lines of the wall's warehouse, best order first
 * (rules 2-4: the line carries its order's priority rank and date), read from the front of their
 * partial index (order_item_scan_candidates_idx, of the lines `is_open`: a generated column, so that
 * a count update that leaves the line open is HOT; a wall of every warehouse orders by -priority_rank,
 * as order_item_scan_candidates_any_warehouse_idx does, which no warehouse's read can walk); each
 * joined to its order by key and kept when the order is unshipped, not drop-ship, in no slot and in the
 * session's picklist when it has one; the walk stops at the fourth kept line. Bounded by the lines it
 * passes (the kept ones and those of orders in slots, shipped or out of the picklist in front of them),
 * not by the sku's open lines in the warehouse, which a sort would read first.
 */
function candidatesSql(warehouse: string, rank: string): string {
  return `
select c.order_item_id, c.qty, c.confirmed_qty, c.pending_qty, (select row_to_json(j) from (select ${orderJsonColumns('o')}
          from orders o where o.client_id = :clientId::int and o.id = c.order_id) j) as order
  from (
    select l.id as order_item_id, l.order_id, l.qty, l.confirmed_qty, l.pending_qty, l.priority_rank, l.order_date
      from order_item l
      cross join lateral (
        select o.status, o.is_drop_ship,
               -- Per line, by key (a subquery in the select list is never turned into a join).
               (select sb.id from sort_box sb where sb.client_id = :clientId::int and sb.order_id = o.id) as slot_id,
               (:picklistId::int is null or exists (select 1 from picklist_order po
                                                     where po.client_id = :clientId::int and po.picklist_id = :picklistId::int and po.order_id = o.id)) as in_picklist
          from orders o where o.client_id = :clientId::int and o.id = l.order_id offset 0) o
     where l.client_id = :clientId::int and ${warehouse} and l.sku = :sku::text and l.is_open
       and o.status = 'Unshipped' and not o.is_drop_ship and o.slot_id is null and o.in_picklist
     order by ${rank}, l.order_date, l.order_id
     limit ${CANDIDATE_LIMIT}
  ) c
 order by c.priority_rank desc, c.order_date, c.order_id`;
}

type CandidateParams = { clientId: number; sku: string; picklistId: number | null };

/** The candidates of a wall with a warehouse: its open lines of the sku only. */
export const scanCandidates = query<CandidateParams & { warehouseId: number }, CandidateRow>('scan-candidates', candidatesSql('l.warehouse_id = :warehouseId::int', 'l.priority_rank desc'));

/** The candidates of a wall without a warehouse, which sorts for all of them. */
export const scanCandidatesAnyWarehouse = query<CandidateParams, CandidateRow>('scan-candidates-any-warehouse', candidatesSql('true', '-l.priority_rank'));

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
  cross join lateral (select o.status, o.is_drop_ship from orders o where o.client_id = oi.client_id and o.id = oi.order_id offset 0) o
 where oi.client_id = :clientId and oi.sku = :sku
   and (:warehouseId::int is null or oi.warehouse_id = :warehouseId::int)
   and o.status = 'Unshipped' and not o.is_drop_ship
   and (:picklistId::int is null or exists (select 1 from picklist_order po
                                             where po.client_id = oi.client_id and po.picklist_id = :picklistId::int and po.order_id = oi.order_id))`);

/**
 * An item the wall does not hold (a finished one: confirmed or cancelled, or another order's since its
 * slot moved on), with its slot if it still has one. Pending items are all held, so a pending one here
 * means the wall's memory is behind.
 */
export const itemById = query<
  { clientId: number; wallId: number; itemId: number },
  { item: Record<string, unknown>; slot: Record<string, unknown> | null }
>('item-by-id', `
select row_to_json(i) as item,
       (select row_to_json(s) from (select sb.id, sb.wall_id as "wallId", sb.serial_number as "serialNumber", sb.crc, sb.position, sb.status,
                                           sb.order_id as "orderId", sb.assigned_at as "assignedAt"
                                      from sort_box sb where sb.id = i."sortBoxId") s) as slot
  from (select ${itemJsonColumns('x')} from sort_box_item x where x.id = :itemId and x.client_id = :clientId and x.wall_id = :wallId) i`);

/** A session the wall does not hold as connected: an ended one (its end reason answers), or none. */
export const sessionByToken = query<{ clientId: number; wallId: number; token: string }, Record<string, unknown>>('session-by-token', `
select ${sessionJsonColumns('s')} from sorter_session s where s.token = :token and s.client_id = :clientId and s.wall_id = :wallId`);

export const picklistStatus = query<{ clientId: number; picklistId: number }, { status: string }>('picklist-status', `
select status from picklist where client_id = :clientId and id = :picklistId`);

// Names of connected sorters, for the sorter-limit-reached detail.
export const employeeNames = query<{ ids: number[] }, { id: number; first_name: string; last_name: string }>('employee-names', `
select id, first_name, last_name from employee where id = any(:ids::int[])`);

export const warehouseExists = query<{ clientId: number; warehouseId: number }, { id: number }>('warehouse-exists', `
select id from warehouse where client_id = :clientId and id = :warehouseId`);

/**
 * What an attachment decides on outside the wall: the client's slots with any of these serial numbers
 * or crcs (on which wall, by name), and ids for the new slots.
 */
export const attachRead = query<
  { clientId: number; serials: string[]; crcs: string[]; fresh: number },
  {
    by_serial: { serialNumber: string; crc: string; wallId: number; wallName: string; position: number }[];
    by_crc: { serialNumber: string; crc: string; wallId: number; wallName: string; position: number }[];
    ids: number[] | null;
  }
>('attach-read', `
select coalesce((select json_agg(json_build_object('serialNumber', b.serial_number, 'crc', b.crc, 'wallId', b.wall_id, 'wallName', w.name, 'position', b.position))
                   from sort_box b join wall w on w.id = b.wall_id
                  where b.client_id = :clientId and b.serial_number = any(:serials::text[])), '[]') as by_serial,
       coalesce((select json_agg(json_build_object('serialNumber', b.serial_number, 'crc', b.crc, 'wallId', b.wall_id, 'wallName', w.name, 'position', b.position))
                   from sort_box b join wall w on w.id = b.wall_id
                  where b.client_id = :clientId and b.crc = any(:crcs::bpchar[])), '[]') as by_crc,
       (select array_agg(nextval('sort_box_id_seq')::int) from generate_series(1, :fresh::int)) as ids`);

/**
 * The unit a serial number of a product was confirmed with, in any wall of the client: through the
 * partial unique index of serials (client, product, serial). Read only by a confirm that carries a
 * serial; the index itself keeps two walls from both confirming it (docs/api.md "Serial numbers").
 */
export const serialHolder = query<
  { clientId: number; productId: number; serial: string },
  { item_id: number; order_id: number; wall_id: number; wall_name: string; crc: string; position: number | null }
>('serial-holder', `
select i.id as item_id, i.order_id, i.wall_id, w.name as wall_name, i.crc,
       (select sb.position from sort_box sb where sb.id = i.sort_box_id) as position
  from sort_box_item i join wall w on w.id = i.wall_id
 where i.client_id = :clientId::int and i.product_id = :productId::int and i.serial = :serial::text`);
