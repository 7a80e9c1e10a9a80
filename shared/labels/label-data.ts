import type { ShipTo } from '../db/entities/order.entity';

/** Everything printed on a license plate (docs/api.md §9). Plain data: it crosses a thread boundary. */
export interface LicensePlateLabel {
  plateNumber: string;
  orderId: number;
  shipTo: ShipTo;
  /** Null when the order sits in no slot (printed by order id before sorting or after release). */
  wallName: string | null;
  crc: string | null;
  /** The slot's number on the wall (its position), printed beside the crc; null with the crc. */
  slotNumber: number | null;
  units: number;
}

export type LabelFormat = 'zpl' | 'pdf';

/** The slot as the label prints it: its number on the wall beside its crc (`4 (0A1B2C3D)`), or `-`. */
export function slotText(label: Pick<LicensePlateLabel, 'crc' | 'slotNumber'>): string {
  if (label.crc === null) return '-';
  return label.slotNumber !== null ? `${label.slotNumber} (${label.crc})` : label.crc;
}

/** The ship-to block as lines, empty parts left out. */
export function addressLines(shipTo: ShipTo): string[] {
  const cityLine = [shipTo.city, [shipTo.state, shipTo.postalCode].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return [shipTo.name, shipTo.street1, shipTo.street2, cityLine, shipTo.country].filter((l): l is string => Boolean(l && l.trim()));
}
