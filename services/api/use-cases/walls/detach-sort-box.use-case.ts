import type { EntityManager } from '@mikro-orm/postgresql';
import { SortBox, SortBoxItem } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';
import type { SortBoxDto } from '../../../../shared/dto/sorting.dto';
import { toSortBoxDto } from '../../../../shared/dto/sorting.mappers';
import { emitWallUpdated, lockWall } from './wall-access';
import { count } from '../../../../shared/text/wording';
import { countsOfWall } from './list-walls.use-case';
import { toWallDto } from '../../../../shared/dto/wall.dto';

/**
 * DELETE /walls/{id}/sort-boxes/{crc}: detaches an Empty slot and answers it as it was.
 * Positions of the other slots stay as they are (a gap where the device was); the serial number
 * is free to be attached to any wall afterwards.
 */
export async function detachSortBox(em: EntityManager, clientId: number, wallId: number, crc: string): Promise<SortBoxDto> {
  return em.transactional(async (tx) => {
    const wall = await lockWall(tx, clientId, wallId);
    const slot = await tx.findOne(SortBox, { clientId, wallId: wall.id, crc });
    if (!slot) throw new AppError('not-found', `Wall '${wall.name}' has no slot with crc ${crc}.`);
    if (slot.status !== 'Empty') {
      throw new AppError(
        'slot-not-empty',
        `Slot ${crc} (position ${slot.position}) of wall '${wall.name}' is ${slot.status} with order ${slot.orderId}; release it (POST /sort-boxes/B-${crc}/release) before detaching it.`,
      );
    }
    // A pending scan must not lose its slot; finished scans keep their history (sort_box_id set null).
    const pending = await tx.count(SortBoxItem, { clientId, sortBoxId: slot.id, status: 'PendingConfirmation' });
    if (pending > 0) {
      throw new AppError(
        'slot-not-empty',
        `Slot ${crc} of wall '${wall.name}' has ${count(pending, 'scan')} waiting for confirmation; confirm or cancel them before detaching it.`,
      );
    }
    const answer = toSortBoxDto(slot);
    tx.remove(slot);
    await tx.flush();
    emitWallUpdated(tx, clientId, toWallDto(wall, await countsOfWall(tx, clientId, wall.id)), 'sort-box-detached', [answer]);
    await tx.flush();
    return answer;
  });
}
