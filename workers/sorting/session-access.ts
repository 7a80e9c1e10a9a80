import { AppError } from '../../shared/errors/app-error';
import type { ISorterSession } from '../../shared/db/entities';
import { decide } from '../../machines/decide';
import { sessionMachine } from '../../machines/session.machine';

/** When a session that is active now ends by itself: every activity moves it on by the idle timeout. */
export function sessionExpiresAt(now: Date, idleTimeoutMs: number): Date {
  return new Date(now.getTime() + idleTimeoutMs);
}

/** The refusal of a session token that is not known on this wall: tokens of other walls or clients do not exist here. */
export function unknownSessionToken(): AppError {
  return new AppError('not-found', 'This session token is not known on this wall; connect to the wall again.');
}

/** Refuses an ended session: the session machine accepts activity only while Connected. */
export function assertSessionActive(session: Pick<ISorterSession, 'status' | 'endReason' | 'endedAt'>): void {
  const d = decide(sessionMachine, session.status, { endReason: session.endReason ?? null }, { type: 'ACTIVITY' });
  if (!d.ok) {
    const at = session.endedAt ? ` at ${new Date(session.endedAt).toISOString()}` : '';
    throw new AppError('session-ended', `Your session on this wall ended (${session.endReason ?? 'ended'}${at}); connect to the wall again.`);
  }
}
