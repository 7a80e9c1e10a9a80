import { sorterBarcode, shipperBarcode } from '../domain/barcodes';
import { colorHex, type SorterColor } from '../domain/colors';
import type { ISortBox, ISortBoxItem, ISorterSession } from '../db/entities';
import type { SessionDto, SessionEventDto, SortBoxDto, SortBoxItemDto } from './sorting.dto';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

export function toSessionDto(s: ISorterSession): SessionDto {
  return { token: s.token, ...toSessionEventDto(s) };
}

/** The session in events: everything but the token (any follower of a wall reads events). */
export function toSessionEventDto(s: ISorterSession): SessionEventDto {
  return {
    id: s.id,
    wallId: s.wallId,
    userId: s.userId,
    picklistId: s.picklistId ?? null,
    color: s.color as SorterColor,
    colorHex: colorHex(s.color as SorterColor),
    status: s.status,
    startedAt: iso(s.startedAt)!,
    lastActivityAt: iso(s.lastActivityAt)!,
    expiresAt: iso(s.expiresAt)!,
    endedAt: iso(s.endedAt),
    endReason: s.endReason ?? null,
  };
}

/** The one SortBox record of the API and of every event (docs/api.md §8: one shape per record). */
export function toSortBoxDto(b: Pick<ISortBox, 'id' | 'wallId' | 'serialNumber' | 'crc' | 'position' | 'status' | 'orderId'>): SortBoxDto {
  return {
    id: b.id,
    wallId: b.wallId,
    serialNumber: b.serialNumber,
    crc: b.crc,
    sorterBarcode: sorterBarcode(b.crc),
    shipperBarcode: shipperBarcode(b.crc),
    position: b.position,
    status: b.status,
    orderId: b.orderId ?? null,
  };
}

/** The order line's figures the item answer carries (docs/api.md §7: requiredUnits, remainingUnits). */
export interface LineFigures {
  qty: number;
  confirmedQty: number;
  pendingQty: number;
}

/** The item fields its answer shows (an entity, or a row a raw query just wrote). */
export type ItemFields = Pick<
  ISortBoxItem,
  'id' | 'wallId' | 'status' | 'units' | 'confirmedUnits' | 'orderId' | 'sku' | 'barcode' | 'barcodeInputMethod' | 'userId' | 'color' | 'createdAt' | 'confirmedAt' | 'cancelledAt'
> & { requiresSerial: boolean; serial?: string | null };

export function toItemDto(item: ItemFields, slot: Pick<ISortBox, 'crc' | 'position'>, line: LineFigures): SortBoxItemDto {
  return {
    id: item.id,
    wallId: item.wallId,
    crc: slot.crc,
    sorterBarcode: sorterBarcode(slot.crc),
    position: slot.position,
    status: item.status,
    units: item.units,
    confirmedUnits: item.confirmedUnits,
    orderId: item.orderId,
    sku: item.sku,
    barcode: item.barcode,
    barcodeInputMethod: item.barcodeInputMethod,
    userId: item.userId,
    color: item.color as SorterColor,
    colorHex: colorHex(item.color as SorterColor),
    requiredUnits: line.qty,
    remainingUnits: Math.max(0, line.qty - line.confirmedQty - line.pendingQty),
    createdAt: iso(item.createdAt)!,
    confirmedAt: iso(item.confirmedAt),
    cancelledAt: iso(item.cancelledAt),
    requiresSerial: item.requiresSerial,
    serial: item.serial ?? null,
  };
}
