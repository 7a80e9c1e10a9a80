import type { ShipTo } from '../db/entities/order.entity';

/**
 * What a label prints, read in SQL by the print statement (label-print.queries.ts) and by
 * the labels consumer's render ahead (workers/labels/label.queries.ts) alike, so both see the same data: `o` the order and its unit count, `s` its slot and wall (none once released). Parameters
 * :clientId and :orderId.
 */
export const LABEL_DATA_CTES = `
o as (
  select o.id, o.ship_to,
         (select coalesce(sum(i.qty), 0)::int from order_item i where i.client_id = o.client_id and i.order_id = o.id) as units
  from orders o where o.client_id = :clientId and o.id = :orderId
), s as (
  select sb.crc, sb.position, w.id as wall_id, w.name as wall_name
  from sort_box sb join wall w on w.id = sb.wall_id
  where sb.client_id = :clientId and sb.order_id = :orderId
)`;

/** The plate number made for order `o`: 'LP' and ten digits of one sequence shared by every client. */
export const NEW_PLATE_NUMBER_SQL = `'LP' || lpad(nextval('license_plate_number_seq')::text, 10, '0')`;

/** The columns LABEL_DATA_CTES gives a label, as both the print route and the pre-render read them. */
export interface LabelRow {
  ship_to: ShipTo | string;
  units: number;
  plate_number: string;
  crc: string | null;
  position: number | null;
  wall_name: string | null;
}
