import { newOutboxEvent } from '../../../../shared/events/outbox-event';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OutboxEvent, Wall, type IWall } from '../../../../shared/db/entities';
import { notFound } from '../../../../shared/errors/app-error';
import type { SortBoxDto } from '../../../../shared/dto/sorting.dto';
import type { WallDto } from '../../../../shared/dto/wall.dto';

/** The caller's wall, or 404 exactly as for a missing one (another client's id reveals nothing). */
export async function findWall(em: EntityManager, clientId: number, wallId: number): Promise<IWall> {
  const wall = await em.findOne(Wall, { id: wallId, clientId });
  if (!wall) throw notFound(`Wall ${wallId}`);
  return wall;
}

/**
 * Loads the wall with `select ... for update` inside the caller's transaction. The sorting workers
 * lock the same row for every workflow command (workers/sorting/wall-command.ts), so a change of the
 * wall or its slots never interleaves with a scan, confirm or swap on that wall.
 */
export async function lockWall(tx: EntityManager, clientId: number, wallId: number): Promise<IWall> {
  const wall = await tx.findOne(Wall, { id: wallId, clientId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!wall) throw notFound(`Wall ${wallId}`);
  return wall;
}

/** What a `wall.updated` event reports as changed, so a hub knows whether to redraw the slots. */
export type WallChange = 'wall' | 'sort-boxes-attached' | 'sort-box-detached';

/**
 * Adds a `wall.updated` event (docs/api.md §8) to the transaction. Its data follows the workers' keyed
 * style (`{ session }`, `{ item, sortBox }`): `{ wall, change, sortBoxes? }`, sortBoxes being the
 * slots attached or the one detached.
 */
export function emitWallUpdated(tx: EntityManager, clientId: number, wall: WallDto, change: WallChange, sortBoxes?: SortBoxDto[], now = new Date()): void {
  tx.create(OutboxEvent, newOutboxEvent(clientId, wall.id, 'wall.updated', { wall, change, ...(sortBoxes ? { sortBoxes } : {}) }, now));
}

/** True when `err` is PostgreSQL's unique violation of the named index. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  return err instanceof UniqueConstraintViolationException && (err as { constraint?: string }).constraint === constraint;
}
