import type { EntityManager } from '@mikro-orm/postgresql';
import { Wall } from '../../../../shared/db/entities';
import { emSql } from '../../../../shared/db/orm-sql';
import { toWallDto, type WallCounts, type WallDto } from '../../../../shared/dto/wall.dto';
import { connectedSessionCounts, countsOfOneWall, slotCounts } from './walls.queries';

/** Slot and connected-session counts per wall, in two grouped queries whatever the number of walls. */
export async function wallCounts(em: EntityManager, clientId: number, wallIds: number[]): Promise<Map<number, WallCounts>> {
  const counts = new Map(wallIds.map((id) => [id, { slotCount: 0, connectedSorters: 0 }]));
  if (wallIds.length === 0) return counts;
  const slots = await slotCounts(emSql(em), { clientId });
  const sessions = await connectedSessionCounts(emSql(em), { clientId });
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
  const [row] = await countsOfOneWall(emSql(em), { clientId, wallId });
  return { slotCount: row?.slot_count ?? 0, connectedSorters: row?.connected_sorters ?? 0 };
}

export async function listWalls(em: EntityManager, clientId: number): Promise<WallDto[]> {
  const walls = await em.find(Wall, { clientId }, { orderBy: { id: 'asc' } });
  const counts = await wallCounts(em, clientId, walls.map((w) => w.id));
  return walls.map((w) => toWallDto(w, counts.get(w.id)!));
}
