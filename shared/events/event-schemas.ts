import { z } from 'zod';
import { sessionEventDto, sortBoxDto, sortBoxItemDto } from '../dto/sorting.dto';
import { wallDto } from '../dto/wall.dto';
import { SORTER_COLORS } from '../domain/colors';
import { LIGHT_MODES } from '../lights/light-model';
import type { WallEvent } from './channels';

/**
 * The `data` of every event type, one zod schema each (docs/api.md §8): the one contract between the
 * writers (the wall's actor, the refusal record, the light gateway, the light modes' use-case) and every
 * reader (audit, statistics, lights, webhooks, the hub and sorter pages). The writers' types are
 * inferred from it (EventData, shared/events/event-data.ts); the readers decode through decodeEvent.
 * A new event type is one line here; the compiler and test/unit/event-contract.test.ts name the
 * other files it needs (docs/architecture.md "Event contract").
 *
 * The schemas read what is stored: an object schema passes fields it does not name over (they are
 * dropped from the decoded value), and fields older events may lack are optional.
 */
const item = sortBoxItemDto;
const box = sortBoxDto;
const session = sessionEventDto;

/** The public types: webhooks receive them (and hubs, and the internal consumers). */
export const PUBLIC_EVENT_SCHEMAS = {
  'session.started': z.object({ session }),
  'session.renewed': z.object({ session }),
  'session.ended': z.object({ session }),
  /** What the hub needs to light the slot: its crc and position, the sorter's color. */
  'sort-box-item.created': z.object({ item, sortBox: box, color: z.enum(SORTER_COLORS), colorHex: z.string() }),
  'sort-box-item.confirmed': z.object({ item, sortBox: box }),
  /** `reason`: absent for a sorter's cancel; a forced release, a slot's short button, or the end of the sorter's session (docs/api.md §6). */
  'sort-box-item.cancelled': z.object({ item, sortBox: box, reason: z.enum(['slot-force-released', 'short-button', 'session-ended']).optional() }),
  'sort-box-item.swapped': z.object({ item, from: box, to: box }),
  'sort-box.completed': z.object({ sortBox: box, orderId: z.number().int() }),
  'sort-box.released': z.object({ sortBox: box, orderId: z.number().int().nullable(), forced: z.boolean(), userId: z.number().int() }),
  /** `wall`: the Wall record (docs/api.md §5); its fields but the id optional, as an older event may lack them. */
  'wall.updated': z.object({ wall: wallDto.partial().required({ id: true }), change: z.enum(['wall', 'sort-boxes-attached', 'sort-box-detached']), sortBoxes: z.array(box).optional() }),
} as const;

const id = z.number().int().nullable();
const text = z.string().nullable();

/**
 * The internal types: written to the outbox like the others, fanned out to the internal consumers
 * (audit, statistics, lights) and to the wall's hubs, never to webhooks.
 */
export const INTERNAL_EVENT_SCHEMAS = {
  /**
   * A workflow command refused by a business rule (docs/architecture.md "Refused commands"); null where
   * the command did not get far enough to know. `command` and `code` are read as text: an older event
   * may carry a name or a code no longer in the unions (CommandRefusedData narrows them for the writer).
   */
  'command.refused': z.object({
    command: z.string(),
    code: z.string(),
    detail: z.string(),
    sessionId: id,
    userId: id,
    barcode: text,
    barcodeInputMethod: text,
    sortBoxItemId: id,
    crc: text,
    orderId: id,
    picklistId: id,
  }),
  /** A wall's light mode set or ended (docs/lights.md): written by the API's light-mode statements. */
  'lights.mode': z.object({ mode: z.enum(LIGHT_MODES), startedAt: z.string().nullable(), until: z.string().nullable(), userId: z.number().int().nullable() }),
  /** A light controller going on or off line (workers/lights/controllers.ts). */
  'lights.controller': z.object({
    controller: z.object({
      id: z.string(),
      driver: z.enum(['mqtt', 'tcp']),
      online: z.boolean(),
      serialNumbers: z.array(z.string()),
      address: z.string().nullable(),
      lastSeenAt: z.string(),
    }),
  }),
  /** A slot button refused on the device (workers/lights/button-press.use-case.ts). */
  'lights.button': z.object({
    serialNumber: z.string(),
    crc: text,
    position: id,
    button: z.string(),
    driver: z.string(),
    code: z.string(),
    detail: z.string(),
  }),
} as const;

export const EVENT_SCHEMAS = { ...PUBLIC_EVENT_SCHEMAS, ...INTERNAL_EVENT_SCHEMAS };

export type PublicEventType = keyof typeof PUBLIC_EVENT_SCHEMAS;
export type InternalEventType = keyof typeof INTERNAL_EVENT_SCHEMAS;
export type AnyEventType = keyof typeof EVENT_SCHEMAS;

/** The `data` of a type as its writer gives it (z.input) and as a reader gets it decoded (z.output). */
export type EventDataIn<T extends AnyEventType> = z.input<(typeof EVENT_SCHEMAS)[T]>;
export type EventDataOf<T extends AnyEventType> = z.output<(typeof EVENT_SCHEMAS)[T]>;

/** An event decoded: its type narrows its data (a reader's `switch (e.type)` is checked by the compiler). */
export type TypedWallEvent = { [T in AnyEventType]: Omit<WallEvent, 'type' | 'data'> & { type: T; data: EventDataOf<T> } }[AnyEventType];

export function isKnownEventType(type: string): type is AnyEventType {
  return Object.hasOwn(EVENT_SCHEMAS, type);
}

/**
 * An event whose type is unknown or whose data fails its type's schema. A consumer that meets one
 * records it in failed_job at once (workers/pipeline/consumer-runner.ts) and passes over it: trying
 * it again cannot make it valid.
 */
export class MalformedEventError extends Error {
  constructor(
    readonly eventId: string,
    readonly type: string,
    reason: string,
  ) {
    super(`event ${eventId} (${type}) does not match its schema: ${reason}`);
    this.name = 'MalformedEventError';
  }
}

/** The event with its data decoded by its type's schema, or the reason it does not match. */
export function safeDecodeEvent(event: WallEvent): { ok: true; event: TypedWallEvent } | { ok: false; error: MalformedEventError } {
  if (!isKnownEventType(event.type)) return { ok: false, error: new MalformedEventError(event.id, event.type, 'unknown event type') };
  const parsed = EVENT_SCHEMAS[event.type].safeParse(event.data);
  if (!parsed.success) {
    const reason = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ');
    return { ok: false, error: new MalformedEventError(event.id, event.type, reason) };
  }
  return { ok: true, event: { ...event, data: parsed.data } as TypedWallEvent };
}

/** The event decoded; throws MalformedEventError when it does not match (a consumer records it as failed). */
export function decodeEvent(event: WallEvent): TypedWallEvent {
  const r = safeDecodeEvent(event);
  if (!r.ok) throw r.error;
  return r.event;
}
