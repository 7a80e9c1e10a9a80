import type { EntityManager } from '@mikro-orm/postgresql';
import { Wall } from '../../../../shared/db/entities';
import { toWallDto, type WallCounts, type WallDto } from '../../../../shared/dto/wall.dto';

/** Slot and connected-session counts per wall, in two grouped queries whatever the number of walls. */
export async function wallCounts(em: EntityManager, clientId: number, wallIds: number[]): Promise<Map<number, WallCounts>> {
  const counts = new Map(wallIds.map((id) => [id, { slotCount: 0, connectedSorters: 0 }]));
  if (wallIds.length === 0) return counts;
  const slots = await em.execute<{ wall_id: number; n: number }[]>(
    'select wall_id, count(*)::int as n from sort_box where client_id = ? group by wall_id',
    [clientId],
  );
  const sessions = await em.execute<{ wall_id: number; n: number }[]>(
    "select wall_id, count(*)::int as n from sorter_session where client_id = ? and status = 'Connected' group by wall_id",
    [clientId],
  );
  for (const r of slots) {
    const c = counts.get(r.wall_id);
    if (c) c.slotCount = r.n;
  }
  for (const r of sessions) {
    const c = counts.get(r.wall_id);
    if (c) c.connectedSorters = r.n;
  }
  return counts;
}

/** GET /walls: every wall of the client, oldest first, with its slot and connected-sorter counts. */
/** The counts of one wall (a write answers its Wall record with them). */
export async function countsOfWall(em: EntityManager, clientId: number, wallId: number): Promise<WallCounts> {
  const [row] = await em.execute<{ slot_count: number; connected_sorters: number }[]>(
    `select (select count(*)::int from sort_box where client_id = ? and wall_id = ?) as slot_count,
            (select count(*)::int from sorter_session where client_id = ? and wall_id = ? and status = 'Connected') as connected_sorters`,
    [clientId, wallId, clientId, wallId],
  );
  return { slotCount: row?.slot_count ?? 0, connectedSorters: row?.connected_sorters ?? 0 };
}

export async function listWalls(em: EntityManager, clientId: number): Promise<WallDto[]> {
  const walls = await em.find(Wall, { clientId }, { orderBy: { id: 'asc' } });
  const counts = await wallCounts(em, clientId, walls.map((w) => w.id));
  return walls.map((w) => toWallDto(w, counts.get(w.id)!));
}
