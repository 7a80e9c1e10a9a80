import type { EntityManager } from '@mikro-orm/postgresql';
import type { WarehouseDto, WarehouseRow } from './admin-data.dto';
import { RowErrors, flagDuplicates, json, sql, type BulkResult } from './bulk';

/** PUT /admin/warehouses: creates or replaces warehouses by id, all-or-nothing, in one statement. */
export async function upsertWarehouses(em: EntityManager, clientId: number, rows: WarehouseRow[]): Promise<BulkResult<WarehouseDto>> {
  const errors = new RowErrors();
  flagDuplicates(rows, (r) => r.id, errors, 'id', 'warehouse id');
  errors.throwIfAny('warehouses', rows.length);
  if (rows.length === 0) return { upserted: 0, created: 0, updated: 0, items: [] };

  const written = await em.transactional((tx) =>
    sql<{ inserted: boolean }>(
      tx,
      `insert into warehouse (client_id, id, name, address, latitude, longitude, time_zone)
       select ?, x.id, x.name, x.address, x.latitude, x.longitude, x.time_zone
       from jsonb_to_recordset(?::jsonb) as x(id int, name text, address text, latitude double precision, longitude double precision, time_zone text)
       on conflict (client_id, id) do update
         set name = excluded.name, address = excluded.address, latitude = excluded.latitude, longitude = excluded.longitude, time_zone = excluded.time_zone
       returning (xmax = 0) as inserted`,
      [clientId, json(rows.map((r) => ({ ...r, time_zone: r.timeZone })))],
    ),
  );
  const created = written.filter((r) => r.inserted).length;
  return { upserted: rows.length, created, updated: rows.length - created, items: rows.map((r) => ({ ...r })) };
}
