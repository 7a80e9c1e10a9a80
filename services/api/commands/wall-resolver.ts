import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, notFound } from '../../../shared/errors/app-error';
import { TtlCache } from '../../../shared/cache/ttl-cache';
import { emSql } from '../../../shared/db/orm-sql';
import type { SqlRunner } from '../../../shared/db/named-sql';
import { wallOfClient, wallOfItemId, wallOfSessionToken, wallOfSlotCrc } from './wall-resolver.queries';

/**
 * Scans and item operations do not name their wall, but the wall decides the command's queue.
 * Token → wall and item → wall never change, so they are cached (bounded, no expiry) per API process.
 * The look-ups are one statement each on the pool (`db`: the route's `sql`, or emSql of an entity
 * manager): a command's request needs no entity manager of its own.
 */
const byToken = new TtlCache<string, number>({ max: 20_000 });
const byItem = new TtlCache<string, number>({ max: 50_000 });

export async function wallOfSession(db: SqlRunner, clientId: number, token: string): Promise<number> {
  const key = `${clientId}:${token}`;
  const cached = byToken.get(key);
  if (cached) return cached;
  const [row] = await wallOfSessionToken(db, { clientId, token });
  if (!row) throw new AppError('not-found', 'This session token is not known; connect to the wall again to get a new one.');
  byToken.set(key, row.wall_id);
  return row.wall_id;
}

/** A scan's answer names its new item: its confirm then needs no lookup. */
export function rememberItemWall(clientId: number, itemId: number, wallId: number): void {
  byItem.set(`${clientId}:${itemId}`, wallId);
}

export async function wallOfItem(db: SqlRunner, clientId: number, itemId: number): Promise<number> {
  const key = `${clientId}:${itemId}`;
  const cached = byItem.get(key);
  if (cached) return cached;
  const [row] = await wallOfItemId(db, { clientId, itemId });
  if (!row) throw notFound(`Sort box item ${itemId}`);
  byItem.set(key, row.wall_id);
  return row.wall_id;
}

export async function wallOfSlot(db: SqlRunner, clientId: number, crc: string): Promise<number> {
  const [row] = await wallOfSlotCrc(db, { clientId, crc });
  if (!row) throw new AppError('not-found', `No slot with barcode ${crc} exists.`);
  return row.wall_id;
}

/** Checks that the wall is the caller's (404 otherwise, like every other resource). */
export async function assertWallExists(em: EntityManager, clientId: number, wallId: number): Promise<void> {
  const [row] = await wallOfClient(emSql(em), { clientId, wallId });
  if (!row) throw notFound(`Wall ${wallId}`);
}
