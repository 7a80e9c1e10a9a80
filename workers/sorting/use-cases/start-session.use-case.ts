import { randomBytes } from 'node:crypto';
import { AppError } from '../../../shared/errors/app-error';
import { count, isAre } from '../../../shared/text/wording';
import { firstFreeColor, type SorterColor } from '../../../shared/domain/colors';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SessionDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { SESSION_ABSENT, sessionMachine } from '../../../machines/session.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toSessionDto, toSessionEventDto } from '../../../shared/dto/sorting.mappers';
import { sessionExpiresAt } from '../session-access';
import { assertWallActive, type WallCommandContext } from '../wall-command';
import type { SessionRecord } from '../queries/session.queries';
import { employeeNames, sessionFromJson, sessionStartRead, sessionStartWrite } from '../queries/session.queries';

/**
 * POST /walls/{id}/sessions (docs/api.md §6). The user's earlier session on the wall ends first
 * (Replaced), so reconnecting on a full wall works; the limit counts the others.
 * One read (sessionStartRead) and one write with the command's record (sessionStartWrite).
 */
export async function startSession(ctx: WallCommandContext, cmd: CommandPayloads['session.start'], idleTimeoutMs: number): Promise<SessionDto> {
  const { db, wall, now, emit } = ctx;
  assertWallActive(wall);
  const [read] = await sessionStartRead(db, { clientId: cmd.clientId, wallId: wall.id, picklistId: cmd.picklistId });
  if (cmd.picklistId !== null) {
    if (read.picklist_status === null) throw new AppError('not-found', `Picklist ${cmd.picklistId} was not found; check the picklist number and connect again.`);
    if (read.picklist_status !== 'Open') {
      throw new AppError('picklist-not-open', `Picklist ${cmd.picklistId} is ${read.picklist_status}; only Open picklists can be sorted.`);
    }
  } else if (wall.workflow === 'PicklistSort') {
    throw new AppError('picklist-required', `Wall '${wall.name}' sorts by picklist: connect with the number of an Open picklist.`);
  }

  const connected: SessionRecord[] = read.connected.map(sessionFromJson);
  const ended: SessionRecord[] = [];
  for (const earlier of connected.filter((s) => s.userId === cmd.userId)) {
    const d = decide(sessionMachine, earlier.status, { endReason: earlier.endReason ?? null }, { type: 'REPLACE' });
    if (!d.ok) continue;
    earlier.status = 'Ended';
    earlier.endReason = d.context.endReason;
    earlier.endedAt = now;
    ended.push(earlier);
    for (const e of d.emits) emit(e, { session: toSessionEventDto(earlier) });
  }

  const others = connected.filter((s) => s.userId !== cmd.userId);
  if (others.length >= wall.maxSorters) {
    const names = await employeeNames(db, { ids: others.map((s) => s.userId) });
    const who = others
      .map((s) => {
        const e = names.find((n) => n.id === s.userId);
        return `${e ? `${e.first_name} ${e.last_name}` : `employee ${s.userId}`} (${s.color})`;
      })
      .join(', ');
    throw new AppError(
      'sorter-limit-reached',
      `Wall '${wall.name}' allows ${count(wall.maxSorters, 'sorter')} at a time and ${others.length} ${isAre(others.length)} connected: ${who}. Ask one of them to disconnect, or a Manager to raise the limit.`,
    );
  }
  const started = decideOrRefuse(sessionMachine, SESSION_ABSENT, { endReason: null }, { type: 'START' }, {});
  const color = firstFreeColor(others.map((s) => s.color)) as SorterColor;
  const session: SessionRecord = {
    id: read.session_id,
    token: randomBytes(24).toString('base64url'),
    clientId: cmd.clientId,
    wallId: wall.id,
    userId: cmd.userId,
    picklistId: cmd.picklistId,
    color,
    status: 'Connected',
    startedAt: now,
    lastActivityAt: now,
    expiresAt: sessionExpiresAt(now, idleTimeoutMs),
    endedAt: null,
    endReason: null,
  };
  for (const e of started.emits) emit(e, { session: toSessionEventDto(session) });
  const dto = toSessionDto(session);
  // The replaced sessions end before the new one takes a color or place (sessionStartWrite).
  await sessionStartWrite(db, {
    ...ctx.record(dto),
    endedIds: ended.map((s) => s.id),
    endedStatus: 'Ended',
    endReasons: ended.map((s) => s.endReason!),
    sessionId: session.id,
    token: session.token,
    userId: session.userId,
    picklistId: session.picklistId,
    color: session.color,
    status: session.status,
    expiresAt: session.expiresAt,
  });
  return dto;
}
