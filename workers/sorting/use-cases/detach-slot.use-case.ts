import { AppError } from '../../../shared/errors/app-error';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SortBoxDto } from '../../../shared/dto/sorting.dto';
import { toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { decideOrRefuse } from '../../../machines/refusals';
import { slotMachine } from '../../../machines/slot.machine';
import type { CommandContext } from '../actor/wall-actor';

/**
 * DELETE /walls/{id}/sort-boxes/{crc} (docs/api.md §5): detaches a slot and answers it as it was. The
 * slot machine decides (DETACH): only an Empty slot without scans awaiting confirmation. Positions of
 * the other slots stay as they are (a gap where the device was); the serial number is free to be
 * attached to any wall afterwards; the slot's finished items keep their crc (history, audit, usage).
 */
export async function detachSlot(ctx: CommandContext, cmd: CommandPayloads['slot.detach']): Promise<SortBoxDto> {
  const { state, changes } = ctx;
  const wall = state.wall;
  const slot = state.slotByCrc(cmd.crc);
  if (!slot) throw new AppError('not-found', `Wall '${wall.name}' has no slot with crc ${cmd.crc}.`);
  const pendingItems = state.pendingItems((i) => i.sortBoxId === slot.id).length;
  decideOrRefuse(slotMachine, slot.status, {}, { type: 'DETACH', pendingItems }, { slot, wall, pendingItems });
  const answer = toSortBoxDto(slot);
  changes.removedSlots.push(slot.id);
  const dto = state.wallDto(wall, { slotCount: state.slots.size - 1, connectedSorters: state.sessions.size });
  changes.emit('wall.updated', { wall: dto, change: 'sort-box-detached', sortBoxes: [answer] });
  return answer;
}
