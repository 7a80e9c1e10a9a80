import { AppError } from '../../../shared/errors/app-error';
import { parseSlotBarcode } from '../../../shared/domain/barcodes';
import type { ISortBox } from '../../../shared/db/entities';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { slotMachine } from '../../../machines/slot.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { itemForActor } from '../item-access';
import { assertOwnSession, assertSessionActive, sessionExpiresAt, unknownSessionToken } from '../session-access';
import { itemRead, swapWrite, touchSessionWrite } from '../queries/item.queries';
import { sessionFromJson } from '../queries/session.queries';
import type { WallCommandContext } from '../wall-command';

/**
 * PATCH /sort-box-items/{id}/swap (docs/api.md §7): moves the item's order to an Empty slot of the same
 * wall, only while this item is the first product sorted into its slot for that order.
 * One read (itemRead with the session and the target slot) and one write with the command's record.
 */
export async function swapItem(ctx: WallCommandContext, cmd: CommandPayloads['item.swap'], idleTimeoutMs: number): Promise<SortBoxItemDto> {
  const { db, wall, now, emit } = ctx;
  const parsed = parseSlotBarcode(cmd.barcode);
  const [row] = await itemRead(db, {
    itemId: cmd.itemId, clientId: cmd.clientId, wallId: wall.id, sessionToken: cmd.sessionToken, targetCrc: parsed && parsed.kind !== 'shipper' ? parsed.crc : null,
  });
  if (!row.session) throw unknownSessionToken();
  const session = sessionFromJson(row.session);
  assertOwnSession(session.userId, cmd.userId);
  assertSessionActive(session);
  const expiresAt = sessionExpiresAt(now, idleTimeoutMs);
  const { item, slot: from, line } = itemForActor(row, cmd);

  if (parsed?.kind === 'shipper') {
    throw new AppError('shipper-barcode-not-accepted', `'${cmd.barcode.trim()}' is a shipper barcode; scan the target slot's sorter barcode (A-…) or its 8-character code.`);
  }
  if (!parsed) {
    throw new AppError('validation-failed', `'${cmd.barcode.trim()}' is not a slot barcode: scan A-XXXXXXXX or the 8-character code.`, {
      errors: [{ path: 'barcode', message: 'not a slot barcode' }],
    });
  }
  const to = row.target;
  if (!to) throw new AppError('not-found', `No slot with barcode ${parsed.crc} on wall '${wall.name}'; scan the sorter barcode of an Empty slot of this wall.`);

  const others = row.others_in_slot;
  const d = decideOrRefuse(sortBoxItemMachine, item.status, {}, { type: 'SWAP', firstInSlot: others === 0 }, { item, slot: from, earlierUnits: others });
  if (to.id === from.id) {
    const dto = toItemDto(item, from, line);
    await touchSessionWrite(db, { ...ctx.record(dto), sessionId: session.id, expiresAt });
    return dto;
  }

  const assign = decideOrRefuse(slotMachine, to.status, {}, { type: 'ASSIGN' }, { slot: to });
  const vacate = decide(slotMachine, from.status, {}, { type: 'VACATE' });
  if (!vacate.ok) throw new AppError('slot-not-swappable', `Slot ${from.position} (${from.crc}) is ${from.status}; it cannot give its order away.`);
  from.status = vacate.value as ISortBox['status'];
  from.orderId = null;
  to.status = assign.value as ISortBox['status'];
  to.orderId = item.orderId;
  const dto = toItemDto(item, to, line);
  for (const e of d.emits) emit(e, { item: dto, from: toSortBoxDto(from), to: toSortBoxDto(to) });
  const [written] = await swapWrite(db, {
    ...ctx.record(dto),
    fromId: from.id, fromStatus: from.status, toId: to.id, toStatus: to.status, toCrc: to.crc, orderId: item.orderId,
    itemId: item.id, sessionId: session.id, expiresAt,
  });
  if (written.moved !== 1) throw new Error(`swap of item ${item.id}: slot ${to.id} was not updated`);
  return dto;
}
