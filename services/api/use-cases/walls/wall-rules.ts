import type { EntityManager } from '@mikro-orm/postgresql';
import { Warehouse } from '../../../../shared/db/entities';
import { unknownWarehouse, wallNameTaken } from '../../../../shared/domain/wall-rules';

/** 409 wall-name-taken when another wall of the client has this name in any letter case. */
export async function assertWallNameFree(em: EntityManager, clientId: number, name: string): Promise<void> {
  // lower() on both sides, exactly as the unique index compares them.
  const rows = await em.execute<{ id: number; name: string }[]>('select id, name from wall where client_id = ? and lower(name) = lower(?) limit 1', [clientId, name]);
  const existing = rows[0];
  if (existing) throw wallNameTaken(existing.name, existing.id);
}

/** A wall's warehouse must be one of the client's warehouses (loaded with PUT /admin/warehouses). */
export async function assertWarehouseExists(em: EntityManager, clientId: number, warehouseId: number): Promise<void> {
  const warehouse = await em.findOne(Warehouse, { clientId, id: warehouseId });
  if (!warehouse) throw unknownWarehouse(warehouseId);
}
