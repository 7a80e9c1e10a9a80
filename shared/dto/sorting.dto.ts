import { z } from 'zod';
import { SORTER_COLORS } from '../domain/colors';
import { BARCODE_INPUT_METHODS, ITEM_STATUSES } from '../db/entities/sort-box-item.entity';
import { SESSION_END_REASONS, SESSION_STATUSES } from '../db/entities/sorter-session.entity';
import { SLOT_STATUSES } from '../db/entities/sort-box.entity';

/** Response shapes of the sorting workflow (docs/api.md §5-7), shared by the API (OpenAPI) and the workers. */
export const sessionDto = z.object({
  id: z.number().int().describe('The session id: what events and audit logs name the session by.'),
  token: z.string().describe('The credential that scans as this sorter: shown only to its owner and to Managers and Admins, never in events.'),
  wallId: z.number().int(),
  userId: z.number().int(),
  picklistId: z.number().int().nullable(),
  color: z.enum(SORTER_COLORS),
  colorHex: z.string(),
  status: z.enum(SESSION_STATUSES),
  startedAt: z.string(),
  lastActivityAt: z.string(),
  expiresAt: z.string(),
  endedAt: z.string().nullable(),
  endReason: z.enum(SESSION_END_REASONS).nullable(),
});
export type SessionDto = z.infer<typeof sessionDto>;

/** A session as events carry it (docs/api.md §8): named by its id, without the token, which is a credential. */
export const sessionEventDto = sessionDto.omit({ token: true });
export type SessionEventDto = z.infer<typeof sessionEventDto>;

export const sortBoxItemDto = z.object({
  id: z.number().int(),
  wallId: z.number().int(),
  crc: z.string(),
  sorterBarcode: z.string(),
  position: z.number().int(),
  status: z.enum(ITEM_STATUSES),
  units: z.number().int(),
  confirmedUnits: z.number().int(),
  orderId: z.number().int(),
  sku: z.string(),
  barcode: z.string(),
  barcodeInputMethod: z.enum(BARCODE_INPUT_METHODS),
  userId: z.number().int(),
  color: z.enum(SORTER_COLORS),
  colorHex: z.string(),
  requiredUnits: z.number().int(),
  remainingUnits: z.number().int(),
  createdAt: z.string(),
  confirmedAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
});
export type SortBoxItemDto = z.infer<typeof sortBoxItemDto>;

export const sortBoxDto = z.object({
  id: z.number().int(),
  wallId: z.number().int(),
  serialNumber: z.string(),
  crc: z.string(),
  sorterBarcode: z.string(),
  shipperBarcode: z.string(),
  position: z.number().int(),
  status: z.enum(SLOT_STATUSES),
  orderId: z.number().int().nullable(),
});
export type SortBoxDto = z.infer<typeof sortBoxDto>;

export const releaseResultDto = sortBoxDto.extend({
  releasedOrderId: z.number().int().nullable(),
  cancelledItems: z.array(sortBoxItemDto),
});
export type ReleaseResultDto = z.infer<typeof releaseResultDto>;
