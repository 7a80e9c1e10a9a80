import type { EntityManager } from '@mikro-orm/postgresql';
import { emTransactionSql } from '../../../../shared/db/orm-sql';
import { moveEveryWallVersion, moveVersionsOfOrderWalls } from './walls.queries';

/**
 * Tells the actors of the walls a change touches (docs/architecture.md "Changes from outside"): the
 * writers outside the command queue (order, picklist and product uploads, an order shipped) end their
 * transaction with this, so the actor holding such a wall reloads before its next decision (its fenced
 * write fails on the moved version). The walls are locked in id order, so two uploads never deadlock on
 * them, and last, so their row locks are held only for the commit.
 */
export async function moveWallVersions(tx: EntityManager, clientId: number, scope: { orderIds: number[] } | 'every-wall'): Promise<void> {
  // On the writer's transaction only: the moved versions must commit with its changes, or not at all.
  const db = emTransactionSql(tx, false);
  if (scope === 'every-wall') await moveEveryWallVersion(db, { clientId });
  else if (scope.orderIds.length > 0) await moveVersionsOfOrderWalls(db, { clientId, orderIds: JSON.stringify(scope.orderIds) });
}
