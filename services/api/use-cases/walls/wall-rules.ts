import type { EntityManager } from '@mikro-orm/postgresql';
import { Warehouse } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';

/** The index behind "unique across all walls of the client", case-insensitively. */
export const WALL_NAME_INDEX = 'wall_client_name_uq';

export function wallNameTaken(name: string, existingId?: number): AppError {
  return new AppError(
    'wall-name-taken',
    `A wall named '${name}' exists already${existingId ? ` (wall ${existingId})` : ''}; wall names are unique per company regardless of upper/lower case. Choose another name.`,
  );
}

/** 409 wall-name-taken when another wall of the client has this name in any letter case. */
export async function assertWallNameFree(em: EntityManager, clientId: number, name: string, exceptWallId?: number): Promise<void> {
  // lower() on both sides, exactly as the unique index compares them.
  const rows = await em.execute<{ id: number; name: string }[]>(
    'select id, name from wall where client_id = ? and lower(name) = lower(?) and id <> ? limit 1',
    [clientId, name, exceptWallId ?? 0],
  );
  const existing = rows[0];
  if (existing) throw wallNameTaken(existing.name, existing.id);
}

/**
 * A wall's warehouse must be one of the client's warehouses (loaded with PUT /admin/warehouses).
 * Refused as 400 validation-failed on the field, like any other invalid field value.
 */
export async function assertWarehouseExists(em: EntityManager, clientId: number, warehouseId: number): Promise<void> {
  const warehouse = await em.findOne(Warehouse, { clientId, id: warehouseId });
  if (!warehouse) {
    throw new AppError(
      'validation-failed',
      `Warehouse ${warehouseId} does not exist; load it first with PUT /admin/warehouses, or leave warehouseId out.`,
      { errors: [{ path: 'warehouseId', message: `no warehouse with id ${warehouseId}` }] },
    );
  }
}
