import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthClaims } from '../../../../shared/auth/jwt';
import type { CommandClient } from '../../../../shared/commands/command-client';
import { commandActor } from '../../commands/command-actor';
import { assertWallExists } from '../../commands/wall-resolver';
import type { WallChangesInput } from '../../../../shared/commands/commands';
import type { SortBoxDto } from '../../../../shared/dto/sorting.dto';
import type { WallDto } from '../../../../shared/dto/wall.dto';

/*
 * Edits of a wall and its slots are commands of the wall (docs/architecture.md "The wall actor"): the
 * actor holding the wall decides them, with the slot machine, in order with the scans, and writes the
 * `wall.updated` event with the change. Here only the wall's existence for the caller (404).
 */

/** PATCH /walls/{id}: changes the fields given (docs/api.md §5). */
export async function updateWall(em: EntityManager, commands: CommandClient, auth: AuthClaims, wallId: number, changes: WallChangesInput): Promise<WallDto> {
  await assertWallExists(em, auth.clientId, wallId);
  return commands.execute('wall.update', { ...commandActor(auth, wallId), changes });
}

/** PUT /walls/{id}/sort-boxes: attaches slots, idempotently and all-or-nothing. */
export async function attachSortBoxes(em: EntityManager, commands: CommandClient, auth: AuthClaims, wallId: number, serialNumbers: string[]): Promise<SortBoxDto[]> {
  await assertWallExists(em, auth.clientId, wallId);
  return commands.execute('slots.attach', { ...commandActor(auth, wallId), serialNumbers });
}

/** DELETE /walls/{id}/sort-boxes/{crc}: detaches a slot and answers it as it was. */
export async function detachSortBox(em: EntityManager, commands: CommandClient, auth: AuthClaims, wallId: number, crc: string): Promise<SortBoxDto> {
  await assertWallExists(em, auth.clientId, wallId);
  return commands.execute('slot.detach', { ...commandActor(auth, wallId), crc });
}
