/** Every event type (docs/api.md §8), in the documented order. */
export const EVENT_TYPES = [
  'session.started',
  'session.renewed',
  'session.ended',
  'sort-box-item.created',
  'sort-box-item.confirmed',
  'sort-box-item.cancelled',
  'sort-box-item.swapped',
  'sort-box.completed',
  'sort-box.released',
  'wall.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Internal event types: written to the outbox like the others, fanned out to the internal consumers
 * (audit, statistics, lights) and to the wall's hubs (SSE, WebSocket), but never sent to webhooks,
 * whose receivers subscribe to the public types above.
 * - `command.refused`: a workflow command refused by a business rule (docs/architecture.md "Refused
 *   commands"); a hub flashes a wrong slot with it.
 * - `lights.mode`, `lights.controller`, `lights.button`: the light gateway's modes (light test, show
 *   address), a controller going on or off line, a slot button refused on the device (docs/lights.md).
 */
export const INTERNAL_EVENT_TYPES = ['command.refused', 'lights.mode', 'lights.controller', 'lights.button'] as const;
export type InternalEventType = (typeof INTERNAL_EVENT_TYPES)[number];

/** True for the types webhooks receive (hubs receive every type of their wall). */
export function isPublicEventType(type: string): boolean {
  return !(INTERNAL_EVENT_TYPES as readonly string[]).includes(type);
}
