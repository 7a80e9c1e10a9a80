import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Wall, type IWall } from '../../../../shared/db/entities';
import { notFound } from '../../../../shared/errors/app-error';

/** The caller's wall, or 404 exactly as for a missing one (another client's id reveals nothing). */
export async function findWall(em: EntityManager, clientId: number, wallId: number): Promise<IWall> {
  const wall = await em.findOne(Wall, { id: wallId, clientId });
  if (!wall) throw notFound(`Wall ${wallId}`);
  return wall;
}

/** True when `err` is PostgreSQL's unique violation of the named index. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  return err instanceof UniqueConstraintViolationException && (err as { constraint?: string }).constraint === constraint;
}
