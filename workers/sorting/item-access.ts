import { AppError } from '../../shared/errors/app-error';
import type { Role } from '../../shared/db/entities';
import { isOwnerOrManager } from '../../shared/auth/roles';
import { finishedItemCode } from '../../machines/sort-box-item.machine';
import { refusalError } from '../../machines/refusals';
import { StaleWallState, type CommandContext } from './actor/wall-actor';
import type { ItemRow, LineRow, SlotRow } from './actor/wall-state';

/** Only the sorter who scanned an item, or a Manager, may confirm, cancel or swap it. */
export function assertMayChangeItem(itemId: number, scannedBy: number, actor: { userId: number; roles: readonly Role[] }): void {
  if (!isOwnerOrManager(scannedBy, actor)) {
    throw new AppError('forbidden', 'This unit was scanned by another sorter; only they or a Manager may change it.', { extensions: { itemId } });
  }
}

/** The item a command names, its slot, and its order line (null for a finished item of an order the wall no longer holds). */
export interface ItemInWall {
  item: ItemRow;
  slot: SlotRow;
  line: LineRow | null;
}

/**
 * The item of a confirm, cancel or swap, if it is this client's and on this wall and the caller may act
 * on it (docs/api.md §7). Pending items and the confirmed units of the orders in the slots are in the
 * wall's memory; any other (a finished item) is read, and its machine answers for it.
 */
export async function itemOfCommand(
  ctx: CommandContext,
  cmd: { itemId: number; userId: number; roles: Role[] },
  /** Called once the item is found, before it is checked (what a refusal's audit record should name). */
  found?: (item: ItemRow, slotCrc: string | null) => void,
): Promise<ItemInWall> {
  const held = ctx.state.items.get(cmd.itemId);
  if (held) {
    const slot = held.sortBoxId === null ? undefined : ctx.state.slots.get(held.sortBoxId);
    found?.(held, slot?.crc ?? null);
    assertMayChangeItem(held.id, held.userId, cmd);
    const line = ctx.state.line(held.orderItemId);
    if (!slot || !line) throw new StaleWallState(`item ${held.id} is held without its slot or line`);
    return { item: held, slot, line };
  }
  const read = await ctx.reads.item(cmd.itemId);
  if (!read) throw new AppError('not-found', `Sort box item ${cmd.itemId} was not found.`);
  const { item, slot } = read;
  // Every pending item is held: one that is not means the memory is behind the database.
  if (item.status === 'PendingConfirmation') throw new StaleWallState(`pending item ${item.id} is not held`);
  found?.(item, slot?.crc ?? null);
  assertMayChangeItem(item.id, item.userId, cmd);
  // Only a finished item can have lost its slot (a slot with pending items cannot be detached).
  if (slot === null) throw refusalError({ code: finishedItemCode(item.status), state: item.status }, { item, slot: null });
  return { item, slot, line: null };
}
