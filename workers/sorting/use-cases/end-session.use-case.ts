import { AppError } from '../../../shared/errors/app-error';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SessionDto } from '../../../shared/dto/sorting.dto';
import { decideOrRefuse } from '../../../machines/refusals';
import { sessionMachine, type SessionEvent } from '../../../machines/session.machine';
import { toSessionDto, toSessionEventDto } from '../../../shared/dto/sorting.mappers';
import { isOwnerOrManager } from '../../../shared/auth/roles';
import { sessionExpiresAt, unknownSessionToken } from '../session-access';
import type { WallCommandContext } from '../wall-command';
import type { SessionRecord } from '../queries/session.queries';
import { sessionById, sessionByToken, sessionWrite } from '../queries/session.queries';

/** The session a token names on this wall, or 404: tokens of other walls or clients do not exist here. */
async function sessionOfToken(ctx: WallCommandContext, clientId: number, token: string): Promise<SessionRecord> {
  const [session] = await sessionByToken(ctx.db, { token, clientId, wallId: ctx.wall.id });
  if (!session) throw unknownSessionToken();
  return session;
}

/** Applies a session event through the machine and writes the result with the command's record. */
async function applySessionEvent(ctx: WallCommandContext, session: SessionRecord, event: SessionEvent, idleTimeoutMs: number): Promise<SessionDto> {
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
  const dto = toSessionDto(session);
  await sessionWrite(ctx.db, {
    ...ctx.record(dto),
    sessionId: session.id,
    status: session.status,
    endReason: session.endReason,
    endedAt: session.endedAt,
    lastActivityAt: session.lastActivityAt,
    expiresAt: session.expiresAt,
  });
  return dto;
}

/** PUT /walls/{id}/sessions/{token}: moves expiresAt to now + the idle timeout. */
export async function renewSession(ctx: WallCommandContext, cmd: CommandPayloads['session.renew'], idleTimeoutMs: number): Promise<SessionDto> {
  const session = await sessionOfToken(ctx, cmd.clientId, cmd.token);
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
  const session = await sessionOfToken(ctx, cmd.clientId, cmd.token);
  const own = session.userId === cmd.userId;
  if (!isOwnerOrManager(session.userId, cmd)) {
    throw new AppError('forbidden', "Only the sorter who owns a session, or a Manager, may end it.");
  }
  return applySessionEvent(ctx, session, { type: own ? 'STOP' : 'DISCONNECT' }, idleTimeoutMs);
}

/** The idle sweep's command: ends a session whose expiry passed (re-checked under the wall lock). */
export async function expireSession(ctx: WallCommandContext, cmd: CommandPayloads['session.expire'], idleTimeoutMs: number): Promise<SessionDto | null> {
  const [session] = await sessionById(ctx.db, { sessionId: cmd.sessionId, clientId: cmd.clientId, wallId: ctx.wall.id });
  if (!session || session.status !== 'Connected' || session.expiresAt.getTime() > ctx.now.getTime()) return null;
  return applySessionEvent(ctx, session, { type: 'EXPIRE' }, idleTimeoutMs);
}
