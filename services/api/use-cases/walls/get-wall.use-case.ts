import type { SqlRunner } from '../../../../shared/db/named-sql';
import type { PendingItemDto } from '../../../../shared/dto/sorting.dto';
import { toItemDto, toSessionDto, toSortBoxDto } from '../../../../shared/dto/sorting.mappers';
import { notFound } from '../../../../shared/errors/app-error';
import { toWallDto, type WallDetailDto, type WallProgressDto } from '../../../../shared/dto/wall.dto';
import type { WallPrinting } from '../printers/printers.use-case';
import type { WallViewCache } from './wall-view-cache';
import { wallPendingItems, wallProgress, wallView, type PendingItemRow } from './wall-view.queries';

export interface WallViewer {
  employeeId: number;
  /** Managers and Admins see every session token; a Sorter only their own. */
  seesAllTokens: boolean;
}

function toPendingItemDto(row: PendingItemRow): PendingItemDto {
  return { ...toItemDto(row, row, row), userName: row.userName };
}

/**
 * GET /walls/{id}: the wall with its printing fields, its slots by position, its connected sessions
 * and its pending scans (docs/api.md §5), in one statement (wall-view.queries.ts): hubs poll it.
 * `db`: the route's `preparedSql` (plain SQL on the pool, no entity manager); `cache`: the process's
 * wall view cache, which answers a wall unchanged since it was last read (wall-view-cache.ts).
 */
export async function getWall(db: SqlRunner, clientId: number, wallId: number, viewer: WallViewer, cache?: WallViewCache): Promise<WallDetailDto & WallPrinting> {
  const read = async () => (await wallView(db, { clientId, wallId }))[0];
  const row = cache ? await cache.read(clientId, wallId, read) : await read();
  if (!row) throw notFound(`Wall ${wallId}`);
  return {
    ...toWallDto(row.wall, { slotCount: row.slots.length, connectedSorters: row.sessions.length }),
    printerId: row.printerId,
    autoPrint: row.autoPrint,
    slots: row.slots.map(toSortBoxDto),
    // A session token lets its holder scan as that sorter, so it is not shown to other sorters.
    sessions: row.sessions.map((s) => {
      const dto = { ...toSessionDto(s), userName: s.userName };
      return viewer.seesAllTokens || s.userId === viewer.employeeId ? dto : { ...dto, token: null };
    }),
    pendingItems: row.pending.map(toPendingItemDto),
  };
}

/** GET /walls/{id}/pending-items: the wall's scans waiting for confirmation, oldest first. */
export async function listPendingItems(db: SqlRunner, clientId: number, wallId: number): Promise<PendingItemDto[]> {
  const [row] = await wallPendingItems(db, { clientId, wallId });
  if (!row) throw notFound(`Wall ${wallId}`);
  return row.pending.map(toPendingItemDto);
}

/**
 * GET /walls/{id}/progress: what is left of the wall's work and how long its Complete slots have waited
 * for the shipper (the hub's header). `oldestCompleteSince` is the earliest of the slots' `since`.
 */
export async function getWallProgress(db: SqlRunner, clientId: number, wallId: number): Promise<WallProgressDto> {
  const [row] = await wallProgress(db, { clientId, wallId });
  if (!row) throw notFound(`Wall ${wallId}`);
  const complete = row.complete.map((c) => ({ ...c, since: new Date(c.since).toISOString() }));
  const oldest = complete.reduce<string | null>((min, c) => (min === null || c.since < min ? c.since : min), null);
  return { unitsLeft: row.unitsLeft, ordersInSlots: row.ordersInSlots, completeSlots: complete, oldestCompleteSince: oldest };
}
