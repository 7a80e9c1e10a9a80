import type { ShipTo } from '../../shared/db/entities/order.entity';

/** Everything printed on a license plate (docs/api.md §9). Plain data: it crosses a thread boundary. */
export interface LicensePlateLabel {
  plateNumber: string;
  orderId: number;
  shipTo: ShipTo;
  /** Null when the order sits in no slot (printed by order id before sorting or after release). */
  wallName: string | null;
  crc: string | null;
  units: number;
}

export type LabelFormat = 'zpl' | 'pdf';

/** The ship-to block as lines, empty parts left out. */
export function addressLines(shipTo: ShipTo): string[] {
  const cityLine = [shipTo.city, [shipTo.state, shipTo.postalCode].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return [shipTo.name, shipTo.street1, shipTo.street2, cityLine, shipTo.country].filter((l): l is string => Boolean(l && l.trim()));
}
