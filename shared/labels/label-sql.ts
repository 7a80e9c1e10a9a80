import { createHash } from 'node:crypto';
import type { ShipTo } from '../db/entities/order.entity';
import type { LicensePlateLabel } from './label-data';

/**
 * What a label prints, read in SQL by the print route and by the labels worker alike, so both see the
 * same data: `o` the order and its unit count, `s` its slot and wall (none once released). Parameters
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

/*
 * Raised when the layout of render-zpl.ts or render-pdf.ts changes, so documents rendered ahead by the
 * labels worker with the old layout are no longer current.
 */
const LABEL_LAYOUT_VERSION = 2;

/** JSON with sorted keys: the same data gives the same text whatever order jsonb returned its keys in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * A digest of everything a label prints (plate number included) and of the layout: a document rendered
 * ahead is current while the digest of the data the print reads now is the same.
 */
export function labelHash(label: LicensePlateLabel): string {
  return createHash('sha256').update(`${LABEL_LAYOUT_VERSION}:${canonical(label)}`).digest('hex');
}

/** The columns LABEL_DATA_CTES gives a label, as both the print route and the pre-render read them. */
export interface LabelRow {
  ship_to: ShipTo | string;
  units: number;
  plate_number: string;
  crc: string | null;
  position: number | null;
  wall_name: string | null;
}

/** One row of label data as the label the renderers take. */
export function toLabel(row: LabelRow, orderId: number): LicensePlateLabel {
  return {
    plateNumber: row.plate_number,
    orderId,
    shipTo: typeof row.ship_to === 'string' ? (JSON.parse(row.ship_to) as ShipTo) : row.ship_to,
    wallName: row.wall_name,
    crc: row.crc,
    slotNumber: row.crc === null ? null : row.position,
    units: Number(row.units),
  };
}
