import { unknownWarehouse, wallNameTaken } from '../../../shared/domain/wall-rules';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { WallDto } from '../../../shared/dto/wall.dto';
import { decide } from '../../../machines/decide';
import { refusalError } from '../../../machines/refusals';
import { slotMachine } from '../../../machines/slot.machine';
import type { CommandContext } from '../actor/wall-actor';
import type { WallRow } from '../actor/wall-state';

const FIELDS = ['name', 'isActive', 'maxSorters', 'warehouseId', 'workflow', 'flowDirection', 'segmentRows', 'segmentColumns'] as const;

/**
 * PATCH /walls/{id} (docs/api.md §5): changes the fields given. Lowering maxSorters or deactivating the
 * wall ends no session; it refuses new connections (and scans). A new warehouse needs every slot free
 * of orders: each slot's machine decides (RETARGET). A change writes one `wall.updated` event; a PATCH
 * that changes nothing writes none.
 */
export async function updateWall(ctx: CommandContext, cmd: CommandPayloads['wall.update']): Promise<WallDto> {
  const { state, changes } = ctx;
  const wall = state.wall;
  const input = cmd.changes;
  const changed = FIELDS.filter((f) => input[f] !== undefined && input[f] !== (wall[f] ?? null));
  if (changed.length === 0) return state.wallDto();

  if (changed.includes('name')) {
    const other = await ctx.reads.wallNamed(input.name!);
    if (other) throw wallNameTaken(other.name, other.id);
  }
  if (changed.includes('warehouseId')) {
    if (input.warehouseId != null && !(await ctx.reads.warehouseExists(input.warehouseId))) throw unknownWarehouse(input.warehouseId);
    // Orders already in slots belong to the old warehouse; moving the wall under them would leave
    // slots holding orders the wall can no longer sort.
    const occupied = state.slotsByPosition().filter((s) => !decide(slotMachine, s.status, {}, { type: 'RETARGET' }).ok);
    if (occupied.length > 0) {
      throw refusalError({ code: 'slot-not-empty', event: 'RETARGET', state: occupied[0]!.status }, { wall, occupied });
    }
  }
  const next: WallRow = { ...wall };
  for (const f of changed) (next as Record<string, unknown>)[f] = input[f];
  changes.setWall(next);
  const dto = state.wallDto(next);
  changes.emit('wall.updated', { wall: dto, change: 'wall' });
  return dto;
}
