import { z } from 'zod';
import { BARCODE_INPUT_METHODS } from '../db/entities/sort-box-item.entity';
import { ROLES } from '../db/entities/employee.entity';
import { WALL_WORKFLOWS } from '../db/entities/wall.entity';
import { FLOW_DIRECTIONS } from '../domain/display-layout';
import type { ReleaseResultDto, SessionDto, SortBoxDto, SortBoxItemDto } from '../dto/sorting.dto';
import type { WallDto } from '../dto/wall.dto';

const id = z.number().int().positive();

/** Why a cancel command was sent besides a sorter's own cancel: `short-button`, the slot's short button on the light device. */
export const CANCEL_REASONS = ['short-button'] as const;
/** Every command names its client and its wall: the wall decides the partition (ordering). */
const base = { clientId: id, wallId: id };
const actor = { userId: id, roles: z.array(z.enum(ROLES)) };

/** The fields a wall edit may change (the API validated them; docs/api.md §5). */
export const wallChangesSchema = z.object({
  name: z.string().optional(),
  isActive: z.boolean().optional(),
  maxSorters: z.number().int().optional(),
  warehouseId: z.number().int().nullable().optional(),
  workflow: z.enum(WALL_WORKFLOWS).optional(),
  flowDirection: z.enum(FLOW_DIRECTIONS).optional(),
  segmentRows: z.number().int().nullable().optional(),
  segmentColumns: z.number().int().nullable().optional(),
});
export type WallChangesInput = z.infer<typeof wallChangesSchema>;

/** The most units one confirm may carry (an integer from 1; the remaining quantity bounds it further). */
export const MAX_CONFIRM_UNITS = 100_000;

/**
 * Everything that changes a wall's state, one schema each (docs/sorting-workflow.md). The API enqueues
 * ids and inputs, never state; the worker parses the payload with this schema when it takes the job,
 * and the wall's actor decides it (workers/sorting/actor).
 */
export const COMMAND_SCHEMAS = {
  'session.start': z.object({ ...base, ...actor, picklistId: id.nullable() }),
  'session.renew': z.object({ ...base, ...actor, token: z.string() }),
  'session.stop': z.object({ ...base, ...actor, token: z.string() }),
  'session.expire': z.object({ ...base, sessionId: id }),
  'item.scan': z.object({
    ...base,
    ...actor,
    sessionToken: z.string(),
    /** As scanned, trimmed by the API. */
    barcode: z.string(),
    barcodeInputMethod: z.enum(BARCODE_INPUT_METHODS),
    idempotencyKey: z.string().nullable(),
  }),
  'item.confirm': z.object({
    ...base,
    ...actor,
    itemId: id,
    units: z.number().int().min(1).max(MAX_CONFIRM_UNITS),
    barcode: z.string().nullable(),
    /** The unit's serial as scanned (docs/api.md "Serial numbers"); null when none was sent. A job queued before serials existed has none. */
    serial: z.string().nullable().optional(),
  }),
  // reason: why, when not the sorter's own cancel (a slot's short button on the device: docs/lights.md).
  'item.cancel': z.object({ ...base, ...actor, itemId: id, reason: z.enum(CANCEL_REASONS).optional() }),
  'item.swap': z.object({ ...base, ...actor, itemId: id, sessionToken: z.string(), barcode: z.string() }),
  // The API reads the shipper's barcode and decides who may force: the command carries the crc and a force already allowed.
  'slot.release': z.object({ ...base, ...actor, crc: z.string().regex(/^[0-9A-F]{8}$/), force: z.boolean() }),
  // A Manager's edit of the wall and of its slots: decided by the wall's actor like every other change.
  'wall.update': z.object({ ...base, ...actor, changes: wallChangesSchema }),
  'slots.attach': z.object({ ...base, ...actor, serialNumbers: z.array(z.string()).min(1) }),
  'slot.detach': z.object({ ...base, ...actor, crc: z.string().regex(/^[0-9A-F]{8}$/) }),
} as const;

export type CommandName = keyof typeof COMMAND_SCHEMAS;
export const COMMAND_NAMES = Object.keys(COMMAND_SCHEMAS) as CommandName[];
export type CommandPayloads = { [N in CommandName]: z.infer<(typeof COMMAND_SCHEMAS)[N]> };

export interface CommandResults {
  'session.start': SessionDto;
  'session.renew': SessionDto;
  'session.stop': SessionDto;
  'session.expire': SessionDto | null;
  'item.scan': SortBoxItemDto;
  'item.confirm': SortBoxItemDto;
  'item.cancel': SortBoxItemDto;
  'item.swap': SortBoxItemDto;
  'slot.release': ReleaseResultDto;
  'wall.update': WallDto;
  'slots.attach': SortBoxDto[];
  'slot.detach': SortBoxDto;
}

/**
 * Commands that finish work a person already started (a unit in the sorter's hand, a lit slot, a full
 * slot on the shipper's side): under overload they are admitted longer than new work (admission.ts).
 */
export const FINISHING_COMMANDS: ReadonlySet<CommandName> = new Set<CommandName>([
  'item.confirm',
  'item.cancel',
  'item.swap',
  'slot.release',
  'session.stop',
  'session.expire',
]);
