// Lifecycle of one scan (docs/api.md §7). Confirmed and Cancelled are not `type: 'final'`:
// they must keep answering confirm/cancel/swap with their own 409 codes, and a final state means
// "done, takes no more events" to actors and readers alike. Absent is the item before its row exists:
// a scan creating it is its SCAN transition, like any other.

import { not, setup } from 'xstate';
import type { SortBoxItemStatus } from '../shared/domain/statuses';
import { count } from '../shared/text/wording';
import type { EmitParams, RefusalCode, RefuseParams } from './decide';

export type SortBoxItemContext = Record<string, never>;

/** The state of an item not yet stored: the only event it takes is SCAN. */
export const SORT_BOX_ITEM_ABSENT = 'Absent';

/** The outbox events the sort box item machine emits (docs/api.md §8). */
export type SortBoxItemEmitted = 'sort-box-item.created' | 'sort-box-item.confirmed' | 'sort-box-item.cancelled' | 'sort-box-item.swapped';

export type SortBoxItemEvent =
  /** A scan reserved a unit for an order and a slot (the worker chose both): the item is created. */
  | { type: 'SCAN' }
  | {
      type: 'CONFIRM';
      units: number;
      /** required − confirmed − pending units of OTHER items, for this item's order and sku. */
      remainingUnits: number;
      /** What the confirm's serial number is worth for this item (absent: `none`). */
      serial?: SerialCheck;
    }
  | { type: 'CANCEL' }
  /** firstInSlot: this item is the first product sorted into its slot for its order. */
  | { type: 'SWAP'; firstInSlot: boolean };

/**
 * A confirm's serial number as the worker found it (docs/api.md "Serial numbers"): `none` (the product
 * takes none and none was sent), `accepted` (well-formed, one unit, sorted nowhere yet for the product),
 * or why it is refused. The worker checks the facts; the machine decides.
 */
export type SerialCheck = 'none' | 'accepted' | 'missing' | 'malformed' | 'unexpected' | 'several-units' | 'taken';

const SERIAL_REFUSALS = {
  missing: 'serial-required',
  malformed: 'serial-invalid',
  unexpected: 'serial-not-required',
  'several-units': 'serial-single-unit',
  taken: 'serial-already-sorted',
} as const satisfies Record<Exclude<SerialCheck, 'none' | 'accepted'>, RefusalCode>;

const serialRefusal = (check: SerialCheck | undefined) => (check === undefined || check === 'none' || check === 'accepted' ? null : SERIAL_REFUSALS[check]);

/** What a finished item answers every confirm, cancel and swap with, even once its slot was detached. */
const FINISHED_ITEM_CODES = {
  Confirmed: 'item-already-confirmed',
  Cancelled: 'item-already-cancelled',
} as const satisfies Record<Exclude<SortBoxItemStatus, 'PendingConfirmation'>, RefusalCode>;

/** The code of an item whose slot is gone: only a finished item can lose its slot (a slot with pending items cannot be detached). */
export function finishedItemCode(status: SortBoxItemStatus): RefusalCode {
  return status === 'Cancelled' ? FINISHED_ITEM_CODES.Cancelled : FINISHED_ITEM_CODES.Confirmed;
}

const alreadyConfirmed = { type: 'refuse', params: { code: FINISHED_ITEM_CODES.Confirmed } } as const;
const alreadyCancelled = { type: 'refuse', params: { code: FINISHED_ITEM_CODES.Cancelled } } as const;

export const sortBoxItemMachine = setup({
  types: {
    context: {} as SortBoxItemContext,
    events: {} as SortBoxItemEvent,
  },
  actions: {
    emit: (_args, _params: EmitParams<SortBoxItemEmitted>) => {},
    refuse: (_args, _params: RefuseParams) => {},
  },
  guards: {
    unitsWithinRemaining: ({ event }) =>
      event.type === 'CONFIRM' &&
      Number.isInteger(event.units) &&
      event.units >= 1 &&
      event.units <= event.remainingUnits,
    serialRefused: ({ event }) => event.type === 'CONFIRM' && serialRefusal(event.serial) !== null,
    firstInSlot: ({ event }) => event.type === 'SWAP' && event.firstInSlot,
  },
}).createMachine({
  id: 'sortBoxItem',
  initial: 'PendingConfirmation',
  context: {},
  states: {
    [SORT_BOX_ITEM_ABSENT]: {
      on: {
        SCAN: { target: 'PendingConfirmation', actions: { type: 'emit', params: { event: 'sort-box-item.created' } } },
      },
    },
    PendingConfirmation: {
      on: {
        CONFIRM: [
          {
            guard: not('unitsWithinRemaining'),
            actions: {
              type: 'refuse',
              params: ({ event }) => ({
                code: 'units-exceed-remaining',
                detail: `Cannot confirm ${count(event.units, 'unit')}: ${Math.max(event.remainingUnits, 0)} remaining for this order and product.`,
              }),
            },
          },
          // The units fit; a product with serials needs the unit's own, once per product (docs/api.md "Serial numbers").
          {
            guard: 'serialRefused',
            actions: { type: 'refuse', params: ({ event }) => ({ code: serialRefusal(event.serial)! }) },
          },
          {
            target: 'Confirmed',
            actions: { type: 'emit', params: { event: 'sort-box-item.confirmed' } },
          },
        ],
        CANCEL: { target: 'Cancelled', actions: { type: 'emit', params: { event: 'sort-box-item.cancelled' } } },
        SWAP: [
          { guard: 'firstInSlot', actions: { type: 'emit', params: { event: 'sort-box-item.swapped' } } },
          {
            actions: {
              type: 'refuse',
              params: {
                code: 'slot-not-swappable',
                detail: 'The slot already holds an earlier product of this order; only the first product sorted into a slot can be swapped.',
              },
            },
          },
        ],
      },
    },
    Confirmed: {
      on: { CONFIRM: { actions: alreadyConfirmed }, CANCEL: { actions: alreadyConfirmed }, SWAP: { actions: alreadyConfirmed } },
    },
    Cancelled: {
      on: { CONFIRM: { actions: alreadyCancelled }, CANCEL: { actions: alreadyCancelled }, SWAP: { actions: alreadyCancelled } },
    },
  },
});
