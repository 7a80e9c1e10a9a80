import type { EntityManager } from '@mikro-orm/postgresql';
import { Wall, type WallWorkflow } from '../../../../shared/db/entities';
import type { FlowDirection } from '../../../../shared/domain/display-layout';
import { withWallDefaults } from '../../../../shared/domain/wall-defaults';
import { isUniqueViolation } from './wall-access';
import { toWallDto, type WallDto } from '../../../../shared/dto/wall.dto';
import { assertWallNameFree, assertWarehouseExists } from './wall-rules';
import { WALL_NAME_INDEX, wallNameTaken } from '../../../../shared/domain/wall-rules';

export interface CreateWallInput {
  name: string;
  isActive?: boolean;
  maxSorters?: number;
  warehouseId?: number | null;
  workflow?: WallWorkflow;
  flowDirection?: FlowDirection;
  segmentRows?: number | null;
  segmentColumns?: number | null;
}

/** POST /walls. The name is checked first for a clear answer; the unique index settles a race. */
export async function createWall(em: EntityManager, clientId: number, input: CreateWallInput): Promise<WallDto> {
  try {
    return await em.transactional(async (tx) => {
      await assertWallNameFree(tx, clientId, input.name);
      if (input.warehouseId != null) await assertWarehouseExists(tx, clientId, input.warehouseId);
      const now = new Date();
      const wall = tx.create(Wall, {
        clientId,
        name: input.name,
        ...withWallDefaults(input),
        createdAt: now,
        updatedAt: now,
      });
      await tx.flush();
      return toWallDto(wall, { slotCount: 0, connectedSorters: 0 });
    });
  } catch (err) {
    if (isUniqueViolation(err, WALL_NAME_INDEX)) throw wallNameTaken(input.name);
    throw err;
  }
}
