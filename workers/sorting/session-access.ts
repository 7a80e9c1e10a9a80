import { AppError } from '../../shared/errors/app-error';
import { decideOrRefuse } from '../../machines/refusals';
import { sessionMachine } from '../../machines/session.machine';
import type { CommandContext } from './actor/wall-actor';
import type { SessionRow, WallRow } from './actor/wall-state';

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
export function assertSessionActive(session: Pick<SessionRow, 'status' | 'endReason' | 'endedAt'>): void {
  decideOrRefuse(sessionMachine, session.status, { endReason: session.endReason ?? null }, { type: 'ACTIVITY' }, { session });
}

/** An inactive wall refuses connections and scans (docs/api.md §6, §7). */
export function assertWallActive(wall: Pick<WallRow, 'isActive' | 'name'>): void {
  if (!wall.isActive) throw new AppError('wall-inactive', `Wall '${wall.name}' is inactive; a Manager can activate it in the hub.`);
}

/**
 * The session a token names on this wall: a connected one from the wall's memory, an ended one from
 * the database (its end reason answers); 404 otherwise.
 */
export async function sessionOfToken(ctx: CommandContext, token: string): Promise<SessionRow> {
  const session = ctx.state.sessionByToken(token) ?? (await ctx.reads.endedSession(token));
  if (!session) throw unknownSessionToken();
  return session;
}

/** Activity of a session (a scan, confirm, cancel or swap): it stays alive for the idle timeout from now. */
export function touchSession(ctx: CommandContext, session: SessionRow): void {
  const current = ctx.changes.sessions.get(session.id) ?? session;
  ctx.changes.setSession({ ...current, lastActivityAt: ctx.now, expiresAt: sessionExpiresAt(ctx.now, ctx.idleTimeoutMs) });
}

/** The activity of the caller's own connected session on the wall, if any (a confirm or a cancel names no session). */
export function touchCaller(ctx: CommandContext, userId: number): void {
  for (const s of ctx.state.sessions.values()) if (s.userId === userId) touchSession(ctx, s);
}
