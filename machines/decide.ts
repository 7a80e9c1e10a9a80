// The one way workers run a machine: rebuild the snapshot from the stored status, take one pure
// transition, and read the outcome from the actions XState returns (nothing is executed).
// Machines say "no" with a `refuse` action and announce outbox events with `emit` actions, so a
// refusal is data the worker maps to a problem+json code, not an exception.

import { transition, type AnyStateMachine, type ContextFrom, type EventFromLogic } from 'xstate';

export interface EmitParams {
  /** Outbox event type, e.g. `sort-box-item.confirmed`. */
  event: string;
}

export interface RefuseParams {
  /** Stable error code (docs/api.md §1), e.g. `item-already-confirmed`. */
  code: string;
  detail?: string;
}

export type Decision<TContext> =
  | { ok: true; value: string; changed: boolean; context: TContext; emits: string[] }
  | { ok: false; code: string; detail?: string };

/** Code for an event the current state does not handle at all: a caller bug, not a user error. */
export const INVALID_TRANSITION = 'invalid-transition';

/**
 * Applies `event` to a machine sitting in state `value` with `context`.
 * Throws if `value` is not a state of the machine (a corrupt stored status is not a refusal).
 */
export function decide<TMachine extends AnyStateMachine>(
  machine: TMachine,
  value: string,
  context: ContextFrom<TMachine>,
  event: EventFromLogic<TMachine>,
): Decision<ContextFrom<TMachine>> {
  // Widened on purpose: xstate's generic snapshot types do not reduce for an unknown machine.
  const logic: AnyStateMachine = machine;
  const snapshot = logic.resolveState({ value, context });

  // transition() answers an unhandled event with the same snapshot and no actions, which looks
  // just like an accepted no-op (ACTIVITY); the enabled transitions tell the two apart.
  if (logic.getTransitionData(snapshot, event).length === 0) {
    return { ok: false, code: INVALID_TRANSITION, detail: `event ${event.type} is not accepted in state ${value}` };
  }

  const [next, actions] = transition(logic, snapshot, event);
  const emits: string[] = [];
  for (const action of actions as ReadonlyArray<{ type: string; params?: unknown }>) {
    if (action.type === 'refuse') {
      const { code, detail } = action.params as RefuseParams;
      return detail === undefined ? { ok: false, code } : { ok: false, code, detail };
    }
    if (action.type === 'emit') emits.push((action.params as EmitParams).event);
  }
  const nextValue = next.value as string;
  return { ok: true, value: nextValue, changed: nextValue !== value, context: next.context as ContextFrom<TMachine>, emits };
}
