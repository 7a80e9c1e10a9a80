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

/**
 * How often activity is written: an idle expiry of hours needs no per-scan precision, and a session
 * left as it is keeps the command's write one table smaller. A tenth of the idle timeout when that is
 * shorter (a timeout of seconds, as tests set it).
 */
export const ACTIVITY_WRITE_INTERVAL_MS = 60_000;

/** The activity write interval for an idle timeout. */
export const activityWriteInterval = (idleTimeoutMs: number) => Math.min(ACTIVITY_WRITE_INTERVAL_MS, idleTimeoutMs / 10);

/**
 * Activity of a session (a scan, confirm, cancel or swap): it stays alive for the idle timeout from now.
 * Written only when the stored activity is a minute old or more (or the stored expiry falls a minute or
 * more short of the timeout from now; a tenth of the timeout when that is less than a minute), so a
 * session expires between one interval before the idle timeout after its last activity and the timeout itself.
 */
export function touchSession(ctx: CommandContext, session: SessionRow): void {
  const current = ctx.changes.sessions.get(session.id) ?? session;
  const now = ctx.now.getTime();
  const interval = activityWriteInterval(ctx.idleTimeoutMs);
  const expiresAt = sessionExpiresAt(ctx.now, ctx.idleTimeoutMs);
  const stale = now - current.lastActivityAt.getTime() >= interval || expiresAt.getTime() - current.expiresAt.getTime() >= interval;
  if (!stale) return;
  ctx.changes.setSession({ ...current, lastActivityAt: ctx.now, expiresAt });
}

/** The activity of the caller's own connected session on the wall, if any (a confirm or a cancel names no session). */
export function touchCaller(ctx: CommandContext, userId: number): void {
  for (const s of ctx.state.sessions.values()) if (s.userId === userId) touchSession(ctx, s);
}
