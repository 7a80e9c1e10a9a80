import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthClaims } from '../../../../shared/auth/jwt';
import { SorterSession } from '../../../../shared/db/entities';
import type { SessionDto } from '../../../../shared/dto/sorting.dto';
import { toSessionDto } from '../../../../shared/dto/sorting.mappers';
import type { CommandClient } from '../../../../shared/commands/command-client';
import { commandActor } from '../../commands/command-actor';
import { assertWallExists } from '../../commands/wall-resolver';

/** POST /walls/{id}/sessions: connect the caller to the wall (the sorting worker decides color and limits). */
export async function startSession(
  em: EntityManager,
  commands: CommandClient,
  auth: AuthClaims,
  wallId: number,
  picklistId: number | null,
): Promise<SessionDto> {
  await assertWallExists(em, auth.clientId, wallId);
  return commands.execute('session.start', { ...commandActor(auth, wallId), picklistId });
}

/** PUT and DELETE /walls/{id}/sessions/{token}: renew or stop a session, addressed by wall and token. */
export async function endOrRenewSession(
  em: EntityManager,
  commands: CommandClient,
  auth: AuthClaims,
  name: 'session.renew' | 'session.stop',
  wallId: number,
  token: string,
): Promise<SessionDto> {
  await assertWallExists(em, auth.clientId, wallId);
  return commands.execute(name, { ...commandActor(auth, wallId), token });
}

/** GET /walls/{id}/sessions: the connected sessions of a wall, oldest first. */
export async function listConnectedSessions(em: EntityManager, clientId: number, wallId: number): Promise<SessionDto[]> {
  await assertWallExists(em, clientId, wallId);
  const sessions = await em.find(SorterSession, { clientId, wallId, status: 'Connected' }, { orderBy: { startedAt: 'asc' } });
  return sessions.map(toSessionDto);
}
