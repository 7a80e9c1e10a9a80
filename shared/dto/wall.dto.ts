import { z } from 'zod';
import { WALL_WORKFLOWS, type IWall } from '../db/entities';
import { FLOW_DIRECTIONS } from '../domain/display-layout';
import { pendingItemDto, sessionDto, sortBoxDto } from './sorting.dto';

/**
 * The Wall record of docs/api.md §5, one shape wherever a wall appears: POST, PATCH and GET /walls,
 * GET /walls/{id} (which adds slots and sessions) and `data.wall` of every `wall.updated` event.
 */
export const wallDto = z.object({
  id: z.number().int(),
  name: z.string(),
  isActive: z.boolean(),
  maxSorters: z.number().int().min(1).max(6),
  warehouseId: z.number().int().nullable(),
  workflow: z.enum(WALL_WORKFLOWS),
  flowDirection: z.enum(FLOW_DIRECTIONS),
  segmentRows: z.number().int().nullable(),
  segmentColumns: z.number().int().nullable(),
  createdAt: z.string(),
  slotCount: z.number().int().describe('Slots (sort boxes) attached to the wall.'),
  connectedSorters: z.number().int().describe('Sessions of the wall in status Connected.'),
});
export type WallDto = z.infer<typeof wallDto>;

/** What a wall record counts besides its own row. */
export interface WallCounts {
  slotCount: number;
  connectedSorters: number;
}

/** GET /walls/{id}: the Wall record plus the slots by position, the connected sessions and the pending scans. */
export const wallDetailDto = wallDto.extend({
  slots: z.array(sortBoxDto).describe('Every slot of the wall, ordered by position.'),
  sessions: z
    .array(
      sessionDto.extend({
        token: z
          .string()
          .nullable()
          .describe("The session token; null for another employee's session unless the caller is a Manager or Admin."),
        userName: z.string().describe("The sorter's name (first and last)"),
      }),
    )
    .describe('The connected sessions of the wall, oldest first.'),
  pendingItems: z
    .array(pendingItemDto)
    .describe('Scans waiting for confirmation (status PendingConfirmation), oldest first: the slots lit now, each in its sorter\'s color.'),
});
export type WallDetailDto = z.infer<typeof wallDetailDto>;

/** GET /walls/{id}/progress: the hub's header figures. */
export const wallProgressDto = z.object({
  unitsLeft: z.number().int().describe('Units the orders now in the wall\'s slots still need: ordered minus confirmed (scans waiting for confirmation count as left)'),
  ordersInSlots: z.number().int().describe('Slots holding an order (Sorting or Complete)'),
  completeSlots: z
    .array(z.object({ crc: z.string(), position: z.number().int(), orderId: z.number().int(), since: z.string().describe('When the slot became Complete (its last confirm), ISO 8601 UTC') }))
    .describe('The Complete slots waiting for the shipper, by position'),
  oldestCompleteSince: z.string().nullable().describe('The earliest `since` of the Complete slots: how long the shipper has kept a slot waiting; null when none is Complete'),
});
export type WallProgressDto = z.infer<typeof wallProgressDto>;

/** The one mapper of the Wall record. */
export function toWallDto(
  w: Pick<IWall, 'id' | 'name' | 'isActive' | 'maxSorters' | 'warehouseId' | 'workflow' | 'flowDirection' | 'segmentRows' | 'segmentColumns' | 'createdAt'>,
  counts: WallCounts,
): WallDto {
  return {
    id: w.id,
    name: w.name,
    isActive: w.isActive,
    maxSorters: w.maxSorters,
    warehouseId: w.warehouseId ?? null,
    workflow: w.workflow,
    flowDirection: w.flowDirection,
    segmentRows: w.segmentRows ?? null,
    segmentColumns: w.segmentColumns ?? null,
    createdAt: new Date(w.createdAt).toISOString(),
    slotCount: counts.slotCount,
    connectedSorters: counts.connectedSorters,
  };
}
