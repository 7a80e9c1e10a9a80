import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../admin-data/bulk';

/**
 * Tells the actors of the walls a change touches (docs/architecture.md "Changes from outside"): the
 * writers outside the command queue (order, picklist and product uploads, an order shipped) end their
 * transaction with this, so the actor holding such a wall reloads before its next decision (its fenced
 * write fails on the moved version). The walls are locked in id order, so two uploads never deadlock on
 * them, and last, so their row locks are held only for the commit.
 */
export async function moveWallVersions(tx: EntityManager, clientId: number, scope: { orderIds: number[] } | 'every-wall'): Promise<void> {
  if (scope !== 'every-wall' && scope.orderIds.length === 0) return;
  const walls =
    scope === 'every-wall'
      ? 'select id from wall where client_id = ?'
      : 'select wall_id from sort_box where client_id = ? and order_id in (select value::int from jsonb_array_elements_text(?::jsonb))';
  await sql(
    tx,
    `with locked as (select id from wall where client_id = ? and id in (${walls}) order by id for update)
     update wall w set version = w.version + 1 from locked where w.id = locked.id`,
    scope === 'every-wall' ? [clientId, clientId] : [clientId, clientId, JSON.stringify(scope.orderIds)],
  );
}
