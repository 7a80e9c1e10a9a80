import { EVENT_TYPES, INTERNAL_EVENT_TYPES } from './event-types';
import type { ErrorCode } from '../errors/error-codes';

/**
 * The refusals of a confirm that name a slot the sorter should not have scanned (a `command.refused`
 * of `item.confirm` with one of these codes): the light gateway flashes the right slot in the
 * sorter's color and the scanned one red, the hub flashes them on screen (docs/lights.md). The hub
 * and sorter pages get this rule and the type lists from services/hub/events.js, generated from here.
 */
export const WRONG_SLOT_CODES = ['wrong-slot', 'shipper-barcode-not-accepted'] as const satisfies readonly ErrorCode[];

/** The hub and sorter pages' module of the event contract (`npm run events:hub` writes it; test/unit/event-contract.test.ts checks it). */
export function hubEventsModule(): string {
  const list = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(', ')}]`;
  return `// @ts-check
// Generated from shared/events (event-types.ts, event-rules.ts) by \`npm run events:hub\`: do not edit.
// The event types and the wrong-slot rule, shared by the hub and sorter pages with the workers.

/** The types webhooks receive (docs/api.md §8). */
export const EVENT_TYPES = ${list(EVENT_TYPES)};

/** The types only hubs and the internal consumers receive. */
export const INTERNAL_EVENT_TYPES = ${list(INTERNAL_EVENT_TYPES)};

/** Refusal codes of a confirm that name a wrong slot. */
export const WRONG_SLOT_CODES = ${list(WRONG_SLOT_CODES)};

/**
 * True for a refused confirm on a wrong slot: the right slot and the scanned one flash.
 * @param {import('./types').WallEvent} event
 */
export function isWrongSlotRefusal(event) {
  return event.type === 'command.refused' && event.data?.command === 'item.confirm' && WRONG_SLOT_CODES.includes(event.data?.code);
}
`;
}
