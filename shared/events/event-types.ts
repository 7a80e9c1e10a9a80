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
 * Internal event types: written to the outbox like the others and fanned out to the internal
 * consumers (audit, statistics), but never sent to hubs (SSE, WebSocket) or webhooks.
 * `command.refused`: a workflow command refused by a business rule (docs/architecture.md "Refused commands").
 */
export const INTERNAL_EVENT_TYPES = ['command.refused'] as const;
export type InternalEventType = (typeof INTERNAL_EVENT_TYPES)[number];

/** True for the types hubs and webhooks receive. */
export function isPublicEventType(type: string): boolean {
  return !(INTERNAL_EVENT_TYPES as readonly string[]).includes(type);
}
