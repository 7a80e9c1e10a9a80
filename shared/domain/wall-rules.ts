import { AppError } from '../errors/app-error';

// The refusals of a wall's own rules (docs/api.md §5), worded once for the API (a new wall) and for the
// wall's actor (an edit).

/** The index behind "unique across all walls of the client", case-insensitively. */
export const WALL_NAME_INDEX = 'wall_client_name_uq';

/** 409 wall-name-taken: names are unique per client, whatever the letter case. */
export function wallNameTaken(name: string, existingId?: number): AppError {
  return new AppError(
    'wall-name-taken',
    `A wall named '${name}' exists already${existingId ? ` (wall ${existingId})` : ''}; wall names are unique per company regardless of upper/lower case. Choose another name.`,
  );
}

/** A wall's warehouse must be one of the client's warehouses: 400 on the field, like any other invalid value. */
export function unknownWarehouse(warehouseId: number): AppError {
  return new AppError('validation-failed', `Warehouse ${warehouseId} does not exist; load it first with PUT /admin/warehouses, or leave warehouseId out.`, {
    errors: [{ path: 'warehouseId', message: `no warehouse with id ${warehouseId}` }],
  });
}
