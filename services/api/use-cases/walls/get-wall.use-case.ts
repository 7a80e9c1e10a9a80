import type { EntityManager } from '@mikro-orm/postgresql';
import { SortBox, SorterSession } from '../../../../shared/db/entities';
import { toSessionDto, toSortBoxDto } from '../../../../shared/dto/sorting.mappers';
import { findWall } from './wall-access';
import { toWallDto, type WallDetailDto } from '../../../../shared/dto/wall.dto';

export interface WallViewer {
  employeeId: number;
  /** Managers and Admins see every session token; a Sorter only their own. */
  seesAllTokens: boolean;
}

/** GET /walls/{id}: the wall, its slots by position and its connected sessions. */
export async function getWall(em: EntityManager, clientId: number, wallId: number, viewer: WallViewer): Promise<WallDetailDto> {
  const wall = await findWall(em, clientId, wallId);
  const slots = await em.find(SortBox, { clientId, wallId }, { orderBy: { position: 'asc' } });
  const sessions = await em.find(SorterSession, { clientId, wallId, status: 'Connected' }, { orderBy: { startedAt: 'asc', id: 'asc' } });
  return {
    ...toWallDto(wall, { slotCount: slots.length, connectedSorters: sessions.length }),
    slots: slots.map(toSortBoxDto),
    // A session token lets its holder scan as that sorter, so it is not shown to other sorters.
    sessions: sessions.map((s) => {
      const dto = toSessionDto(s);
      return viewer.seesAllTokens || s.userId === viewer.employeeId ? dto : { ...dto, token: null };
    }),
  };
}
