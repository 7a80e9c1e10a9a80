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
