// @ts-check
// Generated from shared/events (event-types.ts, event-rules.ts) by `npm run events:hub`: do not edit.
// The event types and the wrong-slot rule, shared by the hub and sorter pages with the workers.

/** The types webhooks receive (docs/api.md §8). */
export const EVENT_TYPES = ['session.started', 'session.renewed', 'session.ended', 'sort-box-item.created', 'sort-box-item.confirmed', 'sort-box-item.cancelled', 'sort-box-item.swapped', 'sort-box.completed', 'sort-box.released', 'wall.updated'];

/** The types only hubs and the internal consumers receive. */
export const INTERNAL_EVENT_TYPES = ['command.refused', 'lights.mode', 'lights.controller', 'lights.button'];

/** Refusal codes of a confirm that name a wrong slot. */
export const WRONG_SLOT_CODES = ['wrong-slot', 'shipper-barcode-not-accepted'];

/**
 * True for a refused confirm on a wrong slot: the right slot and the scanned one flash.
 * @param {import('./types').WallEvent} event
 */
export function isWrongSlotRefusal(event) {
  return event.type === 'command.refused' && event.data?.command === 'item.confirm' && WRONG_SLOT_CODES.includes(event.data?.code);
}
