// The words of every refusal a machine makes (docs/api.md §6 and §7): one place turns a refusal
// (its code, the event refused, the state refusing it) and the facts a use-case knows into the
// problem's detail. The machines decide WHETHER and with which code; this file says it to a person.

import type { AnyStateMachine, ContextFrom, EventFromLogic } from 'xstate';
import { AppError } from '../shared/errors/app-error';
import { count } from '../shared/text/wording';
import { decide, type Accepted, type EmittedBy, type RefusalCode, type Refused, INVALID_TRANSITION } from './decide';
import type { SessionEndReason } from '../shared/domain/statuses';

/** A machine's "no", with what it was asked and where it stood. */
export interface Refusal {
  code: Refused['code'];
  /** The machine's own words, if any (the fallback when the facts below are not known). */
  detail?: string;
  /** The event refused, e.g. `CONFIRM`; absent when the worker found the refusal without asking (a detached slot). */
  event?: string;
  /** The state refusing it, e.g. `Confirmed`. */
  state: string;
}

/** What the use-case knows about the refused command; each refusal's words use the facts they need. */
export interface RefusalFacts {
  /** The sort box item a confirm, cancel or swap names. */
  item?: { id: number; orderId: number; sku?: string; crc?: string; confirmedAt?: Date | string | null };
  /** The slot concerned (the item's, or the one asked to take an order); null: the item's slot was detached since. */
  slot?: { position: number; crc: string; orderId?: number | null; status?: string } | null;
  /** The wall concerned (a slot's detachment, a wall edit). */
  wall?: { name: string };
  /** Scans awaiting confirmation in the slot (a refused detachment). */
  pendingItems?: number;
  /** The slots holding orders (a refused change of the wall's warehouse), by position. */
  occupied?: { crc: string; orderId: number | null }[];
  /** The session concerned. */
  session?: { endReason?: SessionEndReason | null; endedAt?: Date | string | null };
  /** Units of the item's order in its slot besides it (a refused swap). */
  earlierUnits?: number;
  /** The units a confirm asked for and what the order line still needs beyond other pending scans. */
  units?: number;
  remainingUnits?: number;
  /** A confirm's serial number: as sent (trimmed), why it is malformed, and where it was sorted before. */
  serial?: { value: string | null; problem?: string; sortedIn?: SerialHolder };
}

/** The unit a serial number was confirmed with before (docs/api.md "Serial numbers"). */
export interface SerialHolder {
  itemId: number;
  orderId: number;
  wallId: number;
  wallName: string;
  crc: string;
  /** The slot's position; null once the slot was detached. */
  position: number | null;
}

const iso = (at: Date | string) => new Date(at).toISOString();
const slotName = (s: { position: number; crc: string }) => `Slot ${s.position} (${s.crc})`;
/** A unit as a sorter knows it: by its product, never by the item's id (that is in the problem's `itemId`). */
const unitOf = (item: { sku?: string }) => (item.sku ? `This unit of ${item.sku}` : 'This unit');
const scanOf = (item: { sku?: string }) => (item.sku ? `This scan of ${item.sku}` : 'This scan');
const inSlot = (slot: { position: number } | null | undefined) => (slot ? ` in slot ${slot.position}` : '');

/** Why a sorter's session ended, in the words the sorter acts on (the time is in the problem's `endedAt`). */
const SESSION_ENDED_FOR_SORTER: Record<SessionEndReason, string> = {
  Stopped: 'it was stopped',
  Replaced: 'you connected to it on another device',
  Expired: 'it expired after inactivity',
  Disconnected: 'a Manager disconnected you',
};

const SESSION_ENDED_WHY: Record<SessionEndReason, string> = {
  Stopped: 'was stopped',
  Replaced: 'was replaced by a newer connection of the same user',
  Expired: 'expired after inactivity',
  Disconnected: 'was disconnected by a Manager',
};

type Words = (r: Refusal, f: RefusalFacts) => string | undefined;

/** Every refusal code's words; a code without words for its facts falls back to the machine's detail. */
const WORDS: { [C in RefusalCode | typeof INVALID_TRANSITION]: Words } = {
  // Details speak to the person at the wall: no item ids, no timestamps (refusalExtensions carries them).
  'item-already-confirmed': (r, { item, slot }) => {
    if (!item) return undefined;
    if (slot === null) return `${unitOf(item)} was confirmed; its slot has since been detached from the wall.`;
    switch (r.event) {
      case 'CANCEL':
        return slot && `${unitOf(item)} is already confirmed in slot ${slot.position}; a confirmed unit cannot be cancelled.`;
      case 'SWAP':
        return `${unitOf(item)} is already confirmed${inSlot(slot)}; it can no longer be moved.`;
      default:
        return `${unitOf(item)} is already confirmed${inSlot(slot)}: nothing more to do for it. Scan the next product.`;
    }
  },
  'item-already-cancelled': (r, { item, slot }) => {
    if (!item) return undefined;
    if (slot === null) return `${scanOf(item)} was cancelled; its slot has since been detached from the wall.`;
    return r.event === 'CANCEL' ? `${scanOf(item)} was already cancelled.` : `${scanOf(item)} was cancelled; scan the unit again.`;
  },
  'units-exceed-remaining': (_r, { item, units, remainingUnits }) => {
    if (!item || units === undefined || remainingUnits === undefined) return undefined;
    const needs = remainingUnits > 0 ? `needs only ${count(remainingUnits, 'more unit')}` : 'needs no more units';
    return `Order ${item.orderId} ${needs} of SKU '${item.sku}' (other pending scans counted); you tried to confirm ${units}. Nothing was confirmed.`;
  },
  'slot-not-swappable': (_r, { item, slot, earlierUnits }) => {
    if (!item || !slot || earlierUnits === undefined) return undefined;
    return `${slotName(slot)} already holds ${count(earlierUnits, 'earlier unit')} of order ${item.orderId}; only the first product of a slot can be moved.`;
  },
  'slot-not-empty': (r, { slot, wall, pendingItems, occupied }) => {
    if (r.event === 'RETARGET' && wall && occupied) {
      const list = occupied.slice(0, 5).map((o) => `${o.crc} (order ${o.orderId})`).join(', ');
      return `Wall '${wall.name}' has ${count(occupied.length, 'slot')} holding orders: ${list}${occupied.length > 5 ? ', ...' : ''}. Release them before changing the wall's warehouse.`;
    }
    if (!slot) return undefined;
    if (r.event === 'DETACH' && wall) {
      if (r.state !== 'Empty') {
        return `Slot ${slot.crc} (position ${slot.position}) of wall '${wall.name}' is ${r.state} with order ${slot.orderId}; release it (POST /sort-boxes/B-${slot.crc}/release) before detaching it.`;
      }
      return `Slot ${slot.crc} of wall '${wall.name}' has ${count(pendingItems ?? 0, 'scan')} waiting for confirmation; confirm or cancel them before detaching it.`;
    }
    if (r.event !== 'ASSIGN') return undefined;
    return `${slotName(slot)} holds order ${slot.orderId ?? '?'}; choose an empty slot.`;
  },
  'slot-not-complete': (r, { slot }) => {
    if (!slot) return undefined;
    return r.state === 'Empty'
      ? `${slotName(slot)} is already empty.`
      : `${slotName(slot)} still waits for units of order ${slot.orderId}; only a Complete slot can be released (a Manager may force it).`;
  },
  'session-ended': (r, { session }) => {
    if (!session) return undefined;
    // A scan, confirm, cancel or swap on an ended session; or the session's own renew, stop or expiry.
    if (r.event === 'ACTIVITY') {
      const why = session.endReason ? `: ${SESSION_ENDED_FOR_SORTER[session.endReason]}` : '';
      return `Your session on this wall has ended${why}. Connect to the wall again.`;
    }
    return `This session ${session.endReason ? SESSION_ENDED_WHY[session.endReason] : 'has ended'}.`;
  },
  'serial-required': (_r, { item, slot }) => {
    if (!item) return undefined;
    return `${unitOf(item)} needs its serial number${inSlot(slot)}: scan the serial on the unit and confirm again. Nothing was confirmed.`;
  },
  'serial-invalid': (_r, { item, serial }) => {
    if (!item || !serial?.problem) return undefined;
    return `${serial.problem} A serial number of ${item.sku ?? 'this product'} is 1 to 64 printable characters without spaces. Nothing was confirmed.`;
  },
  'serial-not-required': (_r, { item }) => {
    if (!item) return undefined;
    return `${item.sku ?? 'This product'} takes no serial number: confirm without one. Nothing was confirmed.`;
  },
  'serial-single-unit': (_r, { item, units }) => {
    if (!item || units === undefined) return undefined;
    return `Each unit of ${item.sku ?? 'this product'} has its own serial number: confirm one unit at a time, each with its serial (you tried to confirm ${units}). Nothing was confirmed.`;
  },
  'serial-already-sorted': (_r, { item, serial }) => {
    const held = serial?.sortedIn;
    if (!item || !serial?.value || !held) return undefined;
    const where = held.position === null ? `slot ${held.crc} (since detached)` : `slot ${held.position} (${held.crc})`;
    return `Serial number '${serial.value}' of ${item.sku ?? 'this product'} is already sorted: order ${held.orderId}, ${where} on wall '${held.wallName}'. Check the unit's serial; nothing was confirmed.`;
  },
  'invalid-transition': () => undefined,
};

/** The detail of a refusal: its words for these facts, else the machine's own, else its code. */
export function refusalDetail(refusal: Refusal, facts: RefusalFacts): string {
  return WORDS[refusal.code](refusal, facts) ?? refusal.detail ?? refusal.code;
}

/**
 * What the words leave out, for programs: the problem's extension fields. `itemId` (and `confirmedAt`)
 * for a finished item, `endReason` and `endedAt` for an ended session.
 */
export function refusalExtensions(refusal: Refusal, facts: RefusalFacts): Record<string, unknown> | undefined {
  const { item, session } = facts;
  if ((refusal.code === 'item-already-confirmed' || refusal.code === 'item-already-cancelled') && item) {
    return { itemId: item.id, ...(item.confirmedAt ? { confirmedAt: iso(item.confirmedAt) } : {}) };
  }
  const held = facts.serial?.sortedIn;
  if (refusal.code === 'serial-already-sorted' && held) {
    return { serial: facts.serial!.value, sku: facts.item?.sku ?? null, orderId: held.orderId, wallId: held.wallId, crc: held.crc, position: held.position, sortBoxItemId: held.itemId };
  }
  if (refusal.code === 'session-ended' && session) {
    return { endReason: session.endReason ?? null, endedAt: session.endedAt ? iso(session.endedAt) : null };
  }
  return undefined;
}

/** The refusal as the error a use-case throws (a problem+json 4xx at the API). */
export function refusalError(refusal: Refusal, facts: RefusalFacts): AppError {
  return new AppError(refusal.code, refusalDetail(refusal, facts), { extensions: refusalExtensions(refusal, facts) });
}

/**
 * decide(), for a command that stops at a refusal: the accepted decision, or the refusal thrown
 * with its words for `facts`.
 */
export function decideOrRefuse<TMachine extends AnyStateMachine>(
  machine: TMachine,
  value: string,
  context: ContextFrom<TMachine>,
  event: EventFromLogic<TMachine>,
  facts: RefusalFacts,
): Accepted<ContextFrom<TMachine>, EmittedBy<TMachine>> {
  const d = decide(machine, value, context, event);
  if (!d.ok) throw refusalError({ ...d, event: event.type, state: value }, facts);
  return d;
}
