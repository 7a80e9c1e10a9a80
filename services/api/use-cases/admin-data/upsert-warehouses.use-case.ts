import type { EntityManager } from '@mikro-orm/postgresql';
import type { WarehouseDto, WarehouseRow } from './admin-data.dto';
import { emTransactionSql } from '../../../../shared/db/orm-sql';
import { RowErrors, flagDuplicates, json, type BulkResult } from './bulk';
import { upsertWarehouseRows } from './admin-data.queries';

/** PUT /admin/warehouses: creates or replaces warehouses by id, all-or-nothing, in one statement. */
export async function upsertWarehouses(em: EntityManager, clientId: number, rows: WarehouseRow[]): Promise<BulkResult<WarehouseDto>> {
  const errors = new RowErrors();
  flagDuplicates(rows, (r) => r.id, errors, 'id', 'warehouse id');
  errors.throwIfAny('warehouses', rows.length);
  if (rows.length === 0) return { upserted: 0, created: 0, updated: 0, items: [] };

  const written = await em.transactional((tx) => upsertWarehouseRows(emTransactionSql(tx, false), { clientId, rows: json(rows.map((r) => ({ ...r, time_zone: r.timeZone }))) }));
  const created = written.filter((r) => r.inserted).length;
  return { upserted: rows.length, created, updated: rows.length - created, items: rows.map((r) => ({ ...r })) };
}
