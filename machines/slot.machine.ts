// A slot (sort box) of a wall (docs/api.md §5 and §7). Events a state does not list (COMPLETE
// on an Empty slot, VACATE on a Complete one, ...) are worker bugs, so they are left unhandled and
// decide() answers `invalid-transition` rather than a user-facing code.

import { setup } from 'xstate';
import type { EmitParams, RefuseParams } from './decide';

export type SlotContext = Record<string, never>;

/** The outbox events the slot machine emits (docs/api.md §8). */
export type SlotEmitted = 'sort-box.completed' | 'sort-box.released';

export type SlotEvent =
  /** A scan placed an order in this slot. */
  | { type: 'ASSIGN' }
  /** The order left before completion: swapped to another slot, or its only pending scan was cancelled. */
  | { type: 'VACATE' }
  /** Every unit of the order is confirmed. */
  | { type: 'COMPLETE' }
  /** The shipper took the order out; force (Manager/Admin) empties a slot that is not Complete. */
  | { type: 'RELEASE'; force: boolean }
  /** Removing the slot from its wall; `pendingItems`: scans awaiting confirmation that name the slot. */
  | { type: 'DETACH'; pendingItems: number }
  /** The wall's warehouse changes: the orders a slot holds would no longer be the wall's to sort. */
  | { type: 'RETARGET' };

const notEmpty = (detail: string) => ({ actions: { type: 'refuse', params: { code: 'slot-not-empty', detail } } }) as const;
const released = { target: 'Empty', actions: { type: 'emit', params: { event: 'sort-box.released' } } } as const;
const releaseIfForced = [
  { guard: 'forced', ...released },
  {
    actions: {
      type: 'refuse',
      params: { code: 'slot-not-complete', detail: 'Only a Complete slot can be released; a Manager or Admin may force it.' },
    },
  },
] as const;

export const slotMachine = setup({
  types: {
    context: {} as SlotContext,
    events: {} as SlotEvent,
  },
  actions: {
    emit: (_args, _params: EmitParams<SlotEmitted>) => {},
    refuse: (_args, _params: RefuseParams) => {},
  },
  guards: {
    forced: ({ event }) => event.type === 'RELEASE' && event.force,
    noPendingItems: ({ event }) => event.type === 'DETACH' && event.pendingItems === 0,
  },
}).createMachine({
  id: 'slot',
  initial: 'Empty',
  context: {},
  states: {
    Empty: {
      on: {
        ASSIGN: { target: 'Sorting' },
        RELEASE: releaseIfForced,
        // A pending scan must not lose its slot; finished scans keep their history.
        DETACH: [{ guard: 'noPendingItems' }, notEmpty('The slot has scans waiting for confirmation; confirm or cancel them first.')],
        RETARGET: {},
      },
    },
    Sorting: {
      on: {
        ASSIGN: notEmpty('The slot already holds an order.'),
        VACATE: { target: 'Empty' },
        COMPLETE: { target: 'Complete', actions: { type: 'emit', params: { event: 'sort-box.completed' } } },
        RELEASE: releaseIfForced,
        DETACH: notEmpty('The slot holds an order being sorted; release it first.'),
        RETARGET: notEmpty('The slot holds an order being sorted; release it first.'),
      },
    },
    Complete: {
      on: {
        ASSIGN: notEmpty('The slot holds a completed order waiting for the shipper.'),
        RELEASE: released,
        DETACH: notEmpty('The slot holds a completed order; release it first.'),
        RETARGET: notEmpty('The slot holds a completed order; release it first.'),
      },
    },
  },
});
