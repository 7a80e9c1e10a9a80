import { randomBytes } from 'node:crypto';
import { AppError } from '../../../shared/errors/app-error';
import { count, isAre } from '../../../shared/text/wording';
import { firstFreeColor, type SorterColor } from '../../../shared/domain/colors';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SessionDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { SESSION_ABSENT, sessionMachine } from '../../../machines/session.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toSessionDto, toSessionEventDto } from '../../../shared/dto/sorting.mappers';
import { assertWallActive, sessionExpiresAt } from '../session-access';
import type { CommandContext } from '../actor/wall-actor';
import type { SessionRow } from '../actor/wall-state';

/**
 * POST /walls/{id}/sessions (docs/api.md §6). The user's earlier session on the wall ends first
 * (Replaced), so reconnecting on a full wall works; the limit counts the others. The new session takes
 * the replaced one's color and its pending scans: they stay lit, in the same color, for the same
 * sorter (docs/api.md §6, "Pending scans when a session ends").
 */
export async function startSession(ctx: CommandContext, cmd: CommandPayloads['session.start']): Promise<SessionDto> {
  const { state, changes, now } = ctx;
  const wall = state.wall;
  assertWallActive(wall);
  if (cmd.picklistId !== null) {
    const status = await ctx.reads.picklistStatus(cmd.picklistId);
    if (status === null) throw new AppError('not-found', `Picklist ${cmd.picklistId} was not found; check the picklist number and connect again.`);
    if (status !== 'Open') throw new AppError('picklist-not-open', `Picklist ${cmd.picklistId} is ${status}; only Open picklists can be sorted.`);
  } else if (wall.workflow === 'PicklistSort') {
    throw new AppError('picklist-required', `Wall '${wall.name}' sorts by picklist: connect with the number of an Open picklist.`);
  }

  const connected = state.connected();
  const replaced: SessionRow[] = [];
  for (const earlier of connected.filter((s) => s.userId === cmd.userId)) {
    const d = decide(sessionMachine, earlier.status, { endReason: earlier.endReason ?? null }, { type: 'REPLACE' });
    if (!d.ok) continue;
    const ended: SessionRow = { ...earlier, status: 'Ended', endReason: d.context.endReason, endedAt: now };
    replaced.push(ended);
    changes.setSession(ended);
    for (const e of d.emits) changes.emit(e, { session: toSessionEventDto(ended) });
  }

  const others = connected.filter((s) => s.userId !== cmd.userId);
  if (others.length >= wall.maxSorters) {
    const names = await ctx.reads.employeeNames(others.map((s) => s.userId));
    const who = others.map((s) => `${names.get(s.userId) ?? `employee ${s.userId}`} (${s.color})`).join(', ');
    throw new AppError(
      'sorter-limit-reached',
      `Wall '${wall.name}' allows ${count(wall.maxSorters, 'sorter')} at a time and ${others.length} ${isAre(others.length)} connected: ${who}. Ask one of them to disconnect, or a Manager to raise the limit.`,
    );
  }
  const started = decideOrRefuse(sessionMachine, SESSION_ABSENT, { endReason: null }, { type: 'START' }, {});
  // A reconnecting sorter keeps the color their lit slots show; anyone else takes the first free one.
  const color = (replaced[0]?.color ?? firstFreeColor(others.map((s) => s.color))) as SorterColor;
  const session: SessionRow = {
    id: await ctx.sessionId(),
    token: randomBytes(24).toString('base64url'),
    clientId: wall.clientId,
    wallId: wall.id,
    userId: cmd.userId,
    picklistId: cmd.picklistId,
    color,
    status: 'Connected',
    startedAt: now,
    lastActivityAt: now,
    expiresAt: sessionExpiresAt(now, ctx.idleTimeoutMs),
    endedAt: null,
    endReason: null,
  };
  changes.newSessions.push(session);
  for (const e of started.emits) changes.emit(e, { session: toSessionEventDto(session) });
  // The replaced session's pending scans are the new session's now.
  for (const r of replaced) {
    for (const item of state.pendingItems((i) => i.sessionId === r.id)) changes.setItem({ ...item, sessionId: session.id });
  }
  return toSessionDto(session);
}
