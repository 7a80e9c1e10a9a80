import { z } from 'zod';
import { SORTER_COLORS } from '../domain/colors';
import { BARCODE_INPUT_METHODS } from '../db/entities/sort-box-item.entity';
import { SESSION_END_REASONS, SESSION_STATUSES, SLOT_STATUSES, SORT_BOX_ITEM_STATUSES } from '../domain/statuses';

/** Response shapes of the sorting workflow (docs/api.md §5-7), shared by the API (OpenAPI) and the workers. */
export const sessionDto = z.object({
  id: z.number().int().describe('The session id: what events and audit logs name the session by.'),
  token: z.string().describe('The credential that scans as this sorter: shown only to its owner and to Managers and Admins, never in events.'),
  wallId: z.number().int(),
  userId: z.number().int().describe('The employee connected'),
  picklistId: z.number().int().nullable().describe('The Open picklist the session sorts; null: any order of the wall'),
  color: z.enum(SORTER_COLORS).describe("The sorter's color on this wall: the first of the palette no other connected session holds"),
  colorHex: z.string().describe('The color as #RRGGBB'),
  status: z.enum(SESSION_STATUSES),
  startedAt: z.string().describe('ISO 8601 UTC'),
  lastActivityAt: z.string().describe('The last connect, renew, scan, confirm, cancel or swap'),
  expiresAt: z.string().describe('When the session ends without further activity (Expired)'),
  endedAt: z.string().nullable().describe('null while Connected'),
  endReason: z.enum(SESSION_END_REASONS).nullable().describe('Stopped, Replaced, Expired or Disconnected; null while Connected'),
});
export type SessionDto = z.infer<typeof sessionDto>;

/** A session as events carry it (docs/api.md §8): named by its id, without the token, which is a credential. */
export const sessionEventDto = sessionDto.omit({ token: true });
export type SessionEventDto = z.infer<typeof sessionEventDto>;

export const sortBoxItemDto = z.object({
  id: z.number().int(),
  wallId: z.number().int(),
  crc: z.string().describe('The slot the unit goes into'),
  sorterBarcode: z.string().describe('A-<crc>: scanning it confirms the item'),
  position: z.number().int().describe('The slot position on the wall (1-based); 0 when the slot was detached since'),
  status: z.enum(SORT_BOX_ITEM_STATUSES),
  units: z.number().int().describe('Units the scan reserved (1)'),
  confirmedUnits: z.number().int().describe('Units confirmed; 0 until confirmed'),
  orderId: z.number().int().describe('The order the unit was assigned to'),
  sku: z.string().describe('The product the barcode resolved to'),
  barcode: z.string().describe('The barcode as scanned'),
  barcodeInputMethod: z.enum(BARCODE_INPUT_METHODS),
  userId: z.number().int().describe('The employee who scanned'),
  color: z.enum(SORTER_COLORS).describe("The sorter's color the slot lights in"),
  colorHex: z.string().describe('The color as #RRGGBB'),
  requiredUnits: z.number().int().describe("The order line's quantity of this SKU"),
  remainingUnits: z.number().int().describe('Units of this SKU the order still needs after this scan (required - confirmed - pending)'),
  createdAt: z.string().describe('ISO 8601 UTC'),
  confirmedAt: z.string().nullable().describe('null unless Confirmed'),
  cancelledAt: z.string().nullable().describe('null unless Cancelled'),
  // Defaults: an event written before serials existed still parses.
  requiresSerial: z.boolean().default(false).describe("The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial"),
  serial: z.string().nullable().default(null).describe('The serial number confirmed with the unit; null until confirmed, and for products without serials'),
});
export type SortBoxItemDto = z.infer<typeof sortBoxItemDto>;

/** A scan waiting for confirmation as a wall lists it (docs/api.md §5): the item and who scanned it, by name. */
export const pendingItemDto = sortBoxItemDto.extend({
  userName: z.string().describe("The sorter's name (first and last), as the hub shows it"),
});
export type PendingItemDto = z.infer<typeof pendingItemDto>;

export const sortBoxDto = z.object({
  id: z.number().int(),
  wallId: z.number().int(),
  serialNumber: z.string().describe('Hardware serial number of the light device'),
  crc: z.string().describe('CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device'),
  sorterBarcode: z.string().describe('A-<crc>, on the front: confirms scans'),
  shipperBarcode: z.string().describe('B-<crc>, on the back: releases a Complete slot'),
  position: z.number().int().describe('1-based position on the wall'),
  status: z.enum(SLOT_STATUSES),
  orderId: z.number().int().nullable().describe('The order the slot holds; null when Empty'),
});
export type SortBoxDto = z.infer<typeof sortBoxDto>;

export const releaseResultDto = sortBoxDto.extend({
  releasedOrderId: z.number().int().nullable().describe('The order the slot held; null when it held none'),
  cancelledItems: z.array(sortBoxItemDto).describe('Pending items a forced release cancelled; empty otherwise'),
});
export type ReleaseResultDto = z.infer<typeof releaseResultDto>;
