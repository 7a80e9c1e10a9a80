import { createHash } from 'node:crypto';
import type { ShipTo } from '../db/entities/order.entity';
import type { LicensePlateLabel } from './label-data';
import type { LabelRow } from './label-data.queries';

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

/** The document rendered ahead for this label, while it is current (its digest is the label's); else null. */
export function currentStoredDocument(row: { stored_hash: string | null; stored_body: Buffer | null }, label: LicensePlateLabel): Buffer | null {
  return row.stored_body && row.stored_hash === labelHash(label) ? row.stored_body : null;
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
