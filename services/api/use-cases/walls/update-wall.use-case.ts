import type { EntityManager } from '@mikro-orm/postgresql';
import { SortBox } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';
import type { CreateWallInput } from './create-wall.use-case';
import { emitWallUpdated, isUniqueViolation, lockWall } from './wall-access';
import { countsOfWall } from './list-walls.use-case';
import { toWallDto, type WallDto } from '../../../../shared/dto/wall.dto';
import { assertWallNameFree, assertWarehouseExists, WALL_NAME_INDEX, wallNameTaken } from './wall-rules';
import { count } from '../../../../shared/text/wording';

export type UpdateWallInput = Partial<CreateWallInput>;

const FIELDS = ['name', 'isActive', 'maxSorters', 'warehouseId', 'workflow', 'flowDirection', 'segmentRows', 'segmentColumns'] as const;

/**
 * PATCH /walls/{id}: changes the fields given. Lowering maxSorters below the connected sessions
 * ends none of them; it only limits new connections. A change writes one `wall.updated` event;
 * a PATCH that changes nothing writes none.
 */
export async function updateWall(em: EntityManager, clientId: number, wallId: number, input: UpdateWallInput): Promise<WallDto> {
  try {
    return await em.transactional(async (tx) => {
      const wall = await lockWall(tx, clientId, wallId);
      const changed = FIELDS.filter((f) => input[f] !== undefined && input[f] !== (wall[f] ?? null));
      if (changed.length === 0) return toWallDto(wall, await countsOfWall(tx, clientId, wall.id));

      if (changed.includes('name')) await assertWallNameFree(tx, clientId, input.name!, wall.id);
      if (changed.includes('warehouseId')) {
        if (input.warehouseId != null) await assertWarehouseExists(tx, clientId, input.warehouseId);
        // Orders already in slots belong to the old warehouse; moving the wall under them would
        // leave slots holding orders the wall can no longer sort.
        const occupied = await tx.find(SortBox, { clientId, wallId, status: { $ne: 'Empty' } }, { orderBy: { position: 'asc' } });
        if (occupied.length > 0) {
          const list = occupied.slice(0, 5).map((s) => `${s.crc} (order ${s.orderId})`).join(', ');
          throw new AppError(
            'slot-not-empty',
            `Wall '${wall.name}' has ${count(occupied.length, 'slot')} holding orders: ${list}${occupied.length > 5 ? ', ...' : ''}. Release them before changing the wall's warehouse.`,
          );
        }
      }
      for (const f of changed) (wall as Record<string, unknown>)[f] = input[f];
      await tx.flush();
      const dto = toWallDto(wall, await countsOfWall(tx, clientId, wall.id));
      emitWallUpdated(tx, clientId, dto, 'wall');
      await tx.flush();
      return dto;
    });
  } catch (err) {
    if (isUniqueViolation(err, WALL_NAME_INDEX)) throw wallNameTaken(input.name ?? '');
    throw err;
  }
}
