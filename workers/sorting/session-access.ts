import { AppError } from '../../shared/errors/app-error';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SorterSession, type ISorterSession } from '../../shared/db/entities';
import { decideOrRefuse } from '../../machines/refusals';
import { sessionMachine } from '../../machines/session.machine';

/** When a session that is active now ends by itself: every activity moves it on by the idle timeout. */
export function sessionExpiresAt(now: Date, idleTimeoutMs: number): Date {
  return new Date(now.getTime() + idleTimeoutMs);
}

/** The session a token names on this wall, or 404: tokens of other walls or clients do not exist here. */
export async function sessionByToken(tx: EntityManager, clientId: number, wallId: number, token: string): Promise<ISorterSession> {
  const session = await tx.findOne(SorterSession, { token, clientId, wallId });
  if (!session) {
    throw new AppError('not-found', 'This session token is not known on this wall; connect to the wall again.');
  }
  return session;
}

/** Refuses an ended session: the session machine accepts activity only while Connected. */
export function assertSessionActive(session: Pick<ISorterSession, 'status' | 'endReason' | 'endedAt'>): void {
  decideOrRefuse(sessionMachine, session.status, { endReason: session.endReason ?? null }, { type: 'ACTIVITY' }, { session });
}

/** Records activity on a connected session (any scan, confirm, cancel or swap), refusing an ended one. */
export function touchSession(session: ISorterSession, now: Date, idleTimeoutMs: number): void {
  assertSessionActive(session);
  session.lastActivityAt = now;
  session.expiresAt = sessionExpiresAt(now, idleTimeoutMs);
}
