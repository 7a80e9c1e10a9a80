import { AppError } from '../../shared/errors/app-error';
import type { ISorterSession } from '../../shared/db/entities';
import { decideOrRefuse } from '../../machines/refusals';
import { sessionMachine } from '../../machines/session.machine';

/** When a session that is active now ends by itself: every activity moves it on by the idle timeout. */
export function sessionExpiresAt(now: Date, idleTimeoutMs: number): Date {
  return new Date(now.getTime() + idleTimeoutMs);
}

/** The refusal of a session token that is not known on this wall: tokens of other walls or clients do not exist here. */
export function unknownSessionToken(): AppError {
  return new AppError('not-found', 'This session token is not known on this wall; connect to the wall again.');
}

/** Refuses a session token of another sorter: a scan or swap goes with the caller's own session. */
export function assertOwnSession(sessionUserId: number, userId: number): void {
  if (sessionUserId !== userId) {
    throw new AppError('forbidden', 'This session token belongs to another sorter; connect to the wall with your own account and use that session.');
  }
}

/** Refuses an ended session: the session machine accepts activity only while Connected. */
export function assertSessionActive(session: Pick<ISorterSession, 'status' | 'endReason' | 'endedAt'>): void {
  decideOrRefuse(sessionMachine, session.status, { endReason: session.endReason ?? null }, { type: 'ACTIVITY' }, { session });
}
