import { INTERNAL_EVENT_SCHEMAS, PUBLIC_EVENT_SCHEMAS, type InternalEventType as SchemaInternal, type PublicEventType } from './event-schemas';

/** Every public event type (docs/api.md §8), in the documented order: the keys of their schemas (shared/events/event-schemas.ts). */
export const EVENT_TYPES = Object.keys(PUBLIC_EVENT_SCHEMAS) as PublicEventType[];
export type EventType = PublicEventType;

/**
 * Internal event types: written to the outbox like the others, fanned out to the internal consumers
 * (audit, statistics, lights) and to the wall's hubs (SSE, WebSocket), but never sent to webhooks,
 * whose receivers subscribe to the public types above.
 * - `command.refused`: a workflow command refused by a business rule (docs/architecture.md "Refused
 *   commands"); a hub flashes a wrong slot with it.
 * - `lights.mode`, `lights.controller`, `lights.button`: the light gateway's modes (light test, show
 *   address), a controller going on or off line, a slot button refused on the device (docs/lights.md).
 */
export const INTERNAL_EVENT_TYPES = Object.keys(INTERNAL_EVENT_SCHEMAS) as SchemaInternal[];
export type InternalEventType = SchemaInternal;

/** True for the types webhooks receive (hubs receive every type of their wall). */
export function isPublicEventType(type: string): boolean {
  return !(INTERNAL_EVENT_TYPES as readonly string[]).includes(type);
}
