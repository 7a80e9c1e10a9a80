// A sorter's connection to a wall (docs/api.md §6). Ended is not `type: 'final'` so that every
// later command still gets the `session-ended` answer. The 8-hour expiry is an EXPIRE event sent by
// a sweep or delayed job, not an `after` delay: timers do not survive a pure transition.
// Absent is the session before its row exists: connecting is its START transition, like any other.

import { assign, setup } from 'xstate';
import type { SessionEndReason } from '../shared/domain/statuses';
import type { EmitParams, RefuseParams } from './decide';

export interface SessionContext {
  endReason: SessionEndReason | null;
}

/** The state of a session not yet stored: the only event it takes is START. */
export const SESSION_ABSENT = 'Absent';

/** The outbox events the session machine emits (docs/api.md §8). */
export type SessionEmitted = 'session.started' | 'session.renewed' | 'session.ended';

export type SessionEvent =
  /** The sorter connects (POST /walls/{id}/sessions); the wall's rules were checked by the worker. */
  | { type: 'START' }
  | { type: 'RENEW' }
  /** A scan, confirm, cancel or swap: keeps the session alive, announces nothing. */
  | { type: 'ACTIVITY' }
  /** The sorter's own DELETE. */
  | { type: 'STOP' }
  /** The same user connected again to the same wall. */
  | { type: 'REPLACE' }
  /** 8 hours without activity. */
  | { type: 'EXPIRE' }
  /** A Manager or Admin ended it. */
  | { type: 'DISCONNECT' };

const endWith = (endReason: SessionEndReason) =>
  ({
    target: 'Ended',
    actions: [
      { type: 'recordEndReason', params: { endReason } },
      { type: 'emit', params: { event: 'session.ended' } },
    ],
  }) as const;

const sessionEnded = { actions: { type: 'refuse', params: { code: 'session-ended' } } } as const;

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actions: {
    emit: (_args, _params: EmitParams<SessionEmitted>) => {},
    refuse: (_args, _params: RefuseParams) => {},
    recordEndReason: assign((_args, params: { endReason: SessionEndReason }) => ({ endReason: params.endReason })),
  },
}).createMachine({
  id: 'session',
  initial: 'Connected',
  context: { endReason: null },
  states: {
    [SESSION_ABSENT]: {
      on: {
        START: { target: 'Connected', actions: { type: 'emit', params: { event: 'session.started' } } },
      },
    },
    Connected: {
      on: {
        RENEW: { actions: { type: 'emit', params: { event: 'session.renewed' } } },
        ACTIVITY: {},
        STOP: endWith('Stopped'),
        REPLACE: endWith('Replaced'),
        EXPIRE: endWith('Expired'),
        DISCONNECT: endWith('Disconnected'),
      },
    },
    Ended: {
      on: {
        RENEW: sessionEnded,
        ACTIVITY: sessionEnded,
        STOP: sessionEnded,
        REPLACE: sessionEnded,
        EXPIRE: sessionEnded,
        DISCONNECT: sessionEnded,
      },
    },
  },
});
