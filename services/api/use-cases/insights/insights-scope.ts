import type { EntityManager } from '@mikro-orm/postgresql';
import { emSql } from '../../../../shared/db/orm-sql';
import { notFound } from '../../../../shared/errors/app-error';
import { SCOPE } from '../../../../shared/statistics/rollup.queries';
import { wallWithZone, warehouseZone } from './insights.queries';

/**
 * Which roll-up rows answer a question, and in which time zone its days and hours are counted
 * (docs/architecture.md "Statistics"): a wall → its rows, in its warehouse's zone; a warehouse → its
 * rows, in its zone; neither → the client's rows, in UTC. Both given and the wall is not in that
 * warehouse → nothing matches (scopeId −1), counted in the wall's zone.
 */
export interface InsightScope {
  clientId: number;
  scope: number;
  scopeId: number;
  timeZone: string;
}

export interface ScopeFilter {
  warehouseId?: number | null;
  wallId?: number | null;
}

export async function resolveScope(em: EntityManager, clientId: number, filter: ScopeFilter): Promise<InsightScope> {
  if (filter.wallId != null) {
    const [wall] = await wallWithZone(emSql(em), { clientId, wallId: filter.wallId });
    if (!wall) throw notFound(`Wall ${filter.wallId}`);
    const outside = filter.warehouseId != null && wall.warehouse_id !== filter.warehouseId;
    return { clientId, scope: SCOPE.wall, scopeId: outside ? -1 : wall.id, timeZone: wall.time_zone ?? 'UTC' };
  }
  if (filter.warehouseId != null) {
    const [warehouse] = await warehouseZone(emSql(em), { clientId, warehouseId: filter.warehouseId });
    if (!warehouse) throw notFound(`Warehouse ${filter.warehouseId}`);
    return { clientId, scope: SCOPE.warehouse, scopeId: filter.warehouseId, timeZone: warehouse.time_zone ?? 'UTC' };
  }
  return { clientId, scope: SCOPE.client, scopeId: 0, timeZone: 'UTC' };
}
