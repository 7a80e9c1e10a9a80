import { AppError } from '../../../shared/errors/app-error';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SessionDto } from '../../../shared/dto/sorting.dto';
import { decideOrRefuse } from '../../../machines/refusals';
import { sessionMachine, type SessionEvent } from '../../../machines/session.machine';
import { toSessionDto, toSessionEventDto } from '../../../shared/dto/sorting.mappers';
import { isOwnerOrManager } from '../../../shared/auth/roles';
import { sessionExpiresAt, sessionOfToken } from '../session-access';
import type { CommandContext } from '../actor/wall-actor';
import type { SessionRow } from '../actor/wall-state';
import { cancelPendingItem } from './cancel-item.use-case';

/**
 * Applies a session event through the machine. A session that ends (Stopped, Expired, Disconnected)
 * cancels its pending scans, so no slot stays lit for nobody (docs/api.md §6, "Pending scans when a
 * session ends"); a replaced one hands them over instead (start-session.use-case.ts).
 */
function applySessionEvent(ctx: CommandContext, session: SessionRow, event: SessionEvent): SessionDto {
  const { changes, now } = ctx;
  const d = decideOrRefuse(sessionMachine, session.status, { endReason: session.endReason ?? null }, event, { session });
  let next: SessionRow = session;
  if (d.value === 'Ended') {
    next = { ...session, status: 'Ended', endReason: d.context.endReason, endedAt: now };
  } else if (event.type === 'RENEW') {
    next = { ...session, lastActivityAt: now, expiresAt: sessionExpiresAt(now, ctx.idleTimeoutMs) };
  }
  changes.setSession(next);
  for (const e of d.emits) changes.emit(e, { session: toSessionEventDto(next) });
  if (next.status === 'Ended') {
    for (const item of ctx.state.pendingItems((i) => i.sessionId === session.id)) cancelPendingItem(ctx, item, 'session-ended');
  }
  return toSessionDto(next);
}

/** PUT /walls/{id}/sessions/{token}: moves expiresAt to now + the idle timeout. */
export async function renewSession(ctx: CommandContext, cmd: CommandPayloads['session.renew']): Promise<SessionDto> {
  const session = await sessionOfToken(ctx, cmd.token);
  if (!isOwnerOrManager(session.userId, cmd)) {
    throw new AppError('forbidden', 'Only the sorter who owns a session, or a Manager, may renew it.');
  }
  return applySessionEvent(ctx, session, { type: 'RENEW' });
}

/**
 * DELETE /walls/{id}/sessions/{token}: the owner stops it (Stopped); a Manager or Admin ending
 * someone else's session disconnects it (Disconnected). Its pending scans are cancelled.
 */
export async function stopSession(ctx: CommandContext, cmd: CommandPayloads['session.stop']): Promise<SessionDto> {
  const session = await sessionOfToken(ctx, cmd.token);
  const own = session.userId === cmd.userId;
  if (!isOwnerOrManager(session.userId, cmd)) {
    throw new AppError('forbidden', 'Only the sorter who owns a session, or a Manager, may end it.');
  }
  return applySessionEvent(ctx, session, { type: own ? 'STOP' : 'DISCONNECT' });
}

/** The idle sweep's command: ends a session whose expiry passed (activity may have moved it on since the sweep looked). */
export async function expireSession(ctx: CommandContext, cmd: CommandPayloads['session.expire']): Promise<SessionDto | null> {
  const session = ctx.state.sessions.get(cmd.sessionId);
  if (!session || session.expiresAt.getTime() > ctx.now.getTime()) return null;
  return applySessionEvent(ctx, session, { type: 'EXPIRE' });
}
