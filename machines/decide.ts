// The one way workers run a machine: rebuild the snapshot from the stored status, take one pure
// transition, and read the outcome from the actions XState returns (nothing is executed).
// Machines say "no" with a `refuse` action and announce outbox events with `emit` actions, so a
// refusal is data: its code is one of the error codes (docs/api.md §1), its words are written in one
// place (machines/refusals.ts), and an emitted type is one of the event types (docs/api.md §8).

import { transition, type AnyStateMachine, type ContextFrom, type EventFromLogic, type StateMachine } from 'xstate';
import type { ErrorCode } from '../shared/errors/error-codes';
import type { EventType } from '../shared/events/event-types';

/** The codes the machines refuse with: their part of the error-code union (docs/api.md §1). */
export const REFUSAL_CODES = [
  'item-already-confirmed',
  'item-already-cancelled',
  'units-exceed-remaining',
  'slot-not-swappable',
  'slot-not-empty',
  'slot-not-complete',
  'session-ended',
  'serial-required',
  'serial-invalid',
  'serial-not-required',
  'serial-single-unit',
  'serial-already-sorted',
] as const satisfies readonly ErrorCode[];
export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** Code for an event the current state does not handle at all: a caller bug, not a user error. */
export const INVALID_TRANSITION = 'invalid-transition' satisfies ErrorCode;

export interface EmitParams<TEvent extends EventType = EventType> {
  /** Outbox event type, e.g. `sort-box-item.confirmed`. */
  event: TEvent;
}

export interface RefuseParams {
  /** Stable error code (docs/api.md §1), e.g. `item-already-confirmed`. */
  code: RefusalCode;
  /** The machine's own words, for a refusal machines/refusals.ts has no fuller words for. */
  detail?: string;
}

/** The outbox event types a machine's `emit` actions may name (its `EmitParams<…>`). */
export type EmittedBy<TMachine> =
  TMachine extends StateMachine<any, any, any, any, infer TAction, any, any, any, any, any, any, any, any, any, any>
    ? Extract<TAction, { type: 'emit' }> extends { params: EmitParams<infer TEvent> } ? TEvent : never
    : never;

export interface Refused {
  ok: false;
  code: RefusalCode | typeof INVALID_TRANSITION;
  detail?: string;
}

export interface Accepted<TContext, TEmitted extends EventType = EventType> {
  ok: true;
  value: string;
  changed: boolean;
  context: TContext;
  emits: TEmitted[];
}

export type Decision<TContext, TEmitted extends EventType = EventType> = Accepted<TContext, TEmitted> | Refused;

/**
 * Decisions taken, per machine, by state, context and event: a transition is pure, and the few the
 * commands take (a scan's ASSIGN and SCAN, a session's ACTIVITY…) repeat on every command, where
 * XState's resolve and transition cost more than the rest of the decision. Kept shared and frozen;
 * emptied when full.
 */
const taken = new WeakMap<AnyStateMachine, Map<string, Decision<unknown, EventType>>>();
const DECISIONS_KEPT = 1_000;

/**
 * Applies `event` to a machine sitting in state `value` with `context`.
 * Throws if `value` is not a state of the machine (a corrupt stored status is not a refusal).
 * The answer is shared by every caller asking the same: read only.
 */
export function decide<TMachine extends AnyStateMachine>(
  machine: TMachine,
  value: string,
  context: ContextFrom<TMachine>,
  event: EventFromLogic<TMachine>,
): Decision<ContextFrom<TMachine>, EmittedBy<TMachine>> {
  let decisions = taken.get(machine);
  if (!decisions) taken.set(machine, (decisions = new Map()));
  const key = JSON.stringify([value, context, event]);
  const known = decisions.get(key);
  if (known) return known as Decision<ContextFrom<TMachine>, EmittedBy<TMachine>>;
  const d = decideAfresh(machine, value, context, event);
  if (decisions.size >= DECISIONS_KEPT) decisions.clear();
  if (d.ok) Object.freeze(d.emits);
  decisions.set(key, Object.freeze(d));
  return d;
}

function decideAfresh<TMachine extends AnyStateMachine>(
  machine: TMachine,
  value: string,
  context: ContextFrom<TMachine>,
  event: EventFromLogic<TMachine>,
): Decision<ContextFrom<TMachine>, EmittedBy<TMachine>> {
  // Widened on purpose: xstate's generic snapshot types do not reduce for an unknown machine.
  const logic: AnyStateMachine = machine;
  const snapshot = logic.resolveState({ value, context });

  // transition() answers an unhandled event with the same snapshot and no actions, which looks
  // just like an accepted no-op (ACTIVITY); the enabled transitions tell the two apart.
  if (logic.getTransitionData(snapshot, event).length === 0) {
    return { ok: false, code: INVALID_TRANSITION, detail: `event ${event.type} is not accepted in state ${value}` };
  }

  const [next, actions] = transition(logic, snapshot, event);
  const emits: EmittedBy<TMachine>[] = [];
  for (const action of actions as ReadonlyArray<{ type: string; params?: unknown }>) {
    if (action.type === 'refuse') {
      const { code, detail } = action.params as RefuseParams;
      return detail === undefined ? { ok: false, code } : { ok: false, code, detail };
    }
    if (action.type === 'emit') emits.push((action.params as EmitParams<EmittedBy<TMachine>>).event);
  }
  const nextValue = next.value as string;
  return { ok: true, value: nextValue, changed: nextValue !== value, context: next.context as ContextFrom<TMachine>, emits };
}
