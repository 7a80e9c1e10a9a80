import { AppError } from '../../../shared/errors/app-error';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SessionDto } from '../../../shared/dto/sorting.dto';
import { SorterSession, type ISorterSession } from '../../../shared/db/entities';
import { decideOrRefuse } from '../../../machines/refusals';
import { sessionMachine, type SessionEvent } from '../../../machines/session.machine';
import { toSessionDto, toSessionEventDto } from '../../../shared/dto/sorting.mappers';
import { isOwnerOrManager } from '../../../shared/auth/roles';
import { sessionByToken, sessionExpiresAt } from '../session-access';
import type { WallCommandContext } from '../wall-command';

/** Applies a session event through the machine and persists the result. */
function applySessionEvent(ctx: WallCommandContext, session: ISorterSession, event: SessionEvent, idleTimeoutMs: number): SessionDto {
  const d = decideOrRefuse(sessionMachine, session.status, { endReason: session.endReason ?? null }, event, { session });
  if (d.value === 'Ended') {
    session.status = 'Ended';
    session.endReason = d.context.endReason;
    session.endedAt = ctx.now;
  } else if (event.type === 'RENEW') {
    session.lastActivityAt = ctx.now;
    session.expiresAt = sessionExpiresAt(ctx.now, idleTimeoutMs);
  }
  for (const e of d.emits) ctx.emit(e, { session: toSessionEventDto(session) });
  return toSessionDto(session);
}

/** PUT /walls/{id}/sessions/{token}: moves expiresAt to now + the idle timeout. */
export async function renewSession(ctx: WallCommandContext, cmd: CommandPayloads['session.renew'], idleTimeoutMs: number): Promise<SessionDto> {
  const session = await sessionByToken(ctx.tx, cmd.clientId, ctx.wall.id, cmd.token);
  if (!isOwnerOrManager(session.userId, cmd)) {
    throw new AppError('forbidden', 'Only the sorter who owns a session, or a Manager, may renew it.');
  }
  return applySessionEvent(ctx, session, { type: 'RENEW' }, idleTimeoutMs);
}

/**
 * DELETE /walls/{id}/sessions/{token}: the owner stops it (Stopped); a Manager or Admin ending
 * someone else's session disconnects it (Disconnected). Pending scans stay pending: another sorter
 * or a Manager can still confirm or cancel them.
 */
export async function stopSession(ctx: WallCommandContext, cmd: CommandPayloads['session.stop'], idleTimeoutMs: number): Promise<SessionDto> {
  const session = await sessionByToken(ctx.tx, cmd.clientId, ctx.wall.id, cmd.token);
  const own = session.userId === cmd.userId;
  if (!isOwnerOrManager(session.userId, cmd)) {
    throw new AppError('forbidden', "Only the sorter who owns a session, or a Manager, may end it.");
  }
  return applySessionEvent(ctx, session, { type: own ? 'STOP' : 'DISCONNECT' }, idleTimeoutMs);
}

/** The idle sweep's command: ends a session whose expiry passed (re-checked under the wall lock). */
export async function expireSession(ctx: WallCommandContext, cmd: CommandPayloads['session.expire'], idleTimeoutMs: number): Promise<SessionDto | null> {
  const session = await ctx.tx.findOne(SorterSession, { id: cmd.sessionId, clientId: cmd.clientId, wallId: ctx.wall.id });
  if (!session || session.status !== 'Connected' || session.expiresAt.getTime() > ctx.now.getTime()) return null;
  return applySessionEvent(ctx, session, { type: 'EXPIRE' }, idleTimeoutMs);
}
