import { randomBytes } from 'node:crypto';
import { AppError } from '../../../shared/errors/app-error';
import { Employee, Picklist, SorterSession } from '../../../shared/db/entities';
import { firstFreeColor, type SorterColor } from '../../../shared/domain/colors';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SessionDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { SESSION_ABSENT, sessionMachine } from '../../../machines/session.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toSessionDto, toSessionEventDto } from '../../../shared/dto/sorting.mappers';
import { sessionExpiresAt } from '../session-access';
import type { WallCommandContext } from '../wall-command';

/**
 * POST /walls/{id}/sessions (docs/api.md §6). The user's earlier session on the wall ends first
 * (Replaced), so reconnecting on a full wall works; the limit counts the others.
 */
export async function startSession(
  { tx, wall, now, emit }: WallCommandContext,
  cmd: CommandPayloads['session.start'],
  idleTimeoutMs: number,
): Promise<SessionDto> {
  if (!wall.isActive) {
    throw new AppError('wall-inactive', `Wall '${wall.name}' is inactive; a Manager can activate it in the hub.`);
  }
  if (cmd.picklistId !== null) {
    const picklist = await tx.findOne(Picklist, { clientId: cmd.clientId, id: cmd.picklistId });
    if (!picklist) throw new AppError('not-found', `Picklist ${cmd.picklistId} was not found.`);
    if (picklist.status !== 'Open') {
      throw new AppError('picklist-not-open', `Picklist ${cmd.picklistId} is ${picklist.status}; only Open picklists can be sorted.`);
    }
  } else if (wall.workflow === 'PicklistSort') {
    throw new AppError('picklist-required', `Wall '${wall.name}' sorts by picklist: connect with the number of an Open picklist.`);
  }

  const connected = await tx.find(SorterSession, { wallId: wall.id, status: 'Connected' }, { orderBy: { startedAt: 'asc' } });
  for (const earlier of connected.filter((s) => s.userId === cmd.userId)) {
    const d = decide(sessionMachine, earlier.status, { endReason: earlier.endReason ?? null }, { type: 'REPLACE' });
    if (!d.ok) continue;
    earlier.status = 'Ended';
    earlier.endReason = d.context.endReason;
    earlier.endedAt = now;
    for (const e of d.emits) emit(e, { session: toSessionEventDto(earlier) });
  }
  // The replaced session must be Ended in the database before the new one takes a color or place.
  await tx.flush();

  const others = connected.filter((s) => s.userId !== cmd.userId);
  if (others.length >= wall.maxSorters) {
    const names = await tx.find(Employee, { id: { $in: others.map((s) => s.userId) } }, { fields: ['id', 'firstName', 'lastName'] });
    const who = others
      .map((s) => {
        const e = names.find((n) => n.id === s.userId);
        return `${e ? `${e.firstName} ${e.lastName}` : `employee ${s.userId}`} (${s.color})`;
      })
      .join(', ');
    throw new AppError(
      'sorter-limit-reached',
      `Wall '${wall.name}' allows ${wall.maxSorters} sorter${wall.maxSorters === 1 ? '' : 's'} at a time and ${others.length} ${others.length === 1 ? 'is' : 'are'} connected: ${who}. Ask one of them to disconnect, or a Manager to raise the limit.`,
    );
  }
  const started = decideOrRefuse(sessionMachine, SESSION_ABSENT, { endReason: null }, { type: 'START' }, {});
  const color = firstFreeColor(others.map((s) => s.color)) as SorterColor;
  const session = tx.create(SorterSession, {
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
  });
  await tx.flush();
  for (const e of started.emits) emit(e, { session: toSessionEventDto(session) });
  const dto = toSessionDto(session);
  return dto;
}
