import type { EntityManager } from '@mikro-orm/postgresql';
import { Warehouse } from '../../../../shared/db/entities';
import { emSql } from '../../../../shared/db/orm-sql';
import { wallNamed } from '../../../../shared/db/wall-name.queries';
import { unknownWarehouse, wallNameTaken } from '../../../../shared/domain/wall-rules';

/** 409 wall-name-taken when another wall of the client has this name in any letter case. */
export async function assertWallNameFree(em: EntityManager, clientId: number, name: string): Promise<void> {
  const rows = await wallNamed(emSql(em), { clientId, name, wallId: 0 });
  const existing = rows[0];
  if (existing) throw wallNameTaken(existing.name, existing.id);
}

/** A wall's warehouse must be one of the client's warehouses (loaded with PUT /admin/warehouses). */
export async function assertWarehouseExists(em: EntityManager, clientId: number, warehouseId: number): Promise<void> {
  const warehouse = await em.findOne(Warehouse, { clientId, id: warehouseId });
  if (!warehouse) throw unknownWarehouse(warehouseId);
}
