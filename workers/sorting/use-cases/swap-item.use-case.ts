import { AppError } from '../../../shared/errors/app-error';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { slotMachine } from '../../../machines/slot.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { itemOfCommand } from '../item-access';
import { assertOwnSession, assertSessionActive, sessionOfToken, touchSession } from '../session-access';
import type { CommandContext } from '../actor/wall-actor';
import type { ItemRow, SlotRow } from '../actor/wall-state';

/**
 * PATCH /sort-box-items/{id}/swap (docs/api.md §7): moves the item's order to an Empty slot of the same
 * wall, only while this item is the first product sorted into its slot for that order.
 */
export async function swapItem(ctx: CommandContext, cmd: CommandPayloads['item.swap']): Promise<SortBoxItemDto> {
  const { state, changes, now } = ctx;
  const parsed = parseSlotBarcode(cmd.barcode);
  const session = await sessionOfToken(ctx, cmd.sessionToken);
  assertOwnSession(session.userId, cmd.userId);
  assertSessionActive(session);
  const { item, slot: from, line } = await itemOfCommand(ctx, cmd);

  if (parsed?.kind === 'shipper') {
    throw new AppError('shipper-barcode-not-accepted', `'${cmd.barcode.trim()}' is a shipper barcode; scan the target slot's sorter barcode (A-…) or its 8-character code.`);
  }
  if (!parsed) {
    throw new AppError('validation-failed', `'${cmd.barcode.trim()}' is not a slot barcode: scan A-XXXXXXXX or the 8-character code.`, {
      errors: [{ path: 'barcode', message: 'not a slot barcode' }],
    });
  }
  const to = state.slotByCrc(parsed.crc);
  if (!to) throw new AppError('not-found', `No slot with barcode ${parsed.crc} on wall '${state.wall.name}'; scan the sorter barcode of an Empty slot of this wall.`);

  // Live (pending or confirmed) items of the same order in the same slot, this one aside.
  const others =
    item.status === 'PendingConfirmation'
      ? state.confirmedIn(from.id, item.orderId) + state.pendingItems((i) => i.sortBoxId === from.id && i.orderId === item.orderId && i.id !== item.id).length
      : 0;
  const d = decideOrRefuse(sortBoxItemMachine, item.status, {}, { type: 'SWAP', firstInSlot: others === 0 }, { item, slot: from, earlierUnits: others });
  if (!line) throw new Error(`item ${item.id}: swapped from ${item.status} without its order line`);
  touchSession(ctx, session);
  if (to.id === from.id) return toItemDto(item, from, line);

  const assign = decideOrRefuse(slotMachine, to.status, {}, { type: 'ASSIGN' }, { slot: to });
  const vacate = decide(slotMachine, from.status, {}, { type: 'VACATE' });
  if (!vacate.ok) throw new AppError('slot-not-swappable', `Slot ${from.position} (${from.crc}) is ${from.status}; it cannot give its order away.`);
  const left: SlotRow = { ...from, status: vacate.value as SlotRow['status'], orderId: null, assignedAt: null };
  const taken: SlotRow = { ...to, status: assign.value as SlotRow['status'], orderId: item.orderId, assignedAt: now };
  changes.setSlot(left);
  changes.setSlot(taken);
  const moved: ItemRow = { ...item, sortBoxId: taken.id, crc: taken.crc };
  changes.setItem(moved);
  const dto = toItemDto(moved, taken, line);
  for (const e of d.emits) changes.emit(e, { item: dto, from: toSortBoxDto(left), to: toSortBoxDto(taken) });
  return dto;
}
