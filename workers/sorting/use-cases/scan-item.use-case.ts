import { createHash } from 'node:crypto';
import { AppError } from '../../../shared/errors/app-error';
import { isAre } from '../../../shared/text/wording';
import { chooseOrder, type OrderCandidate } from '../../../shared/domain/order-choice';
import { chooseSlot, type SlotStatus } from '../../../shared/domain/slot-choice';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { slotMachine } from '../../../machines/slot.machine';
import { SORT_BOX_ITEM_ABSENT, sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { assertOwnSession, assertSessionActive, sessionExpiresAt, unknownSessionToken } from '../session-access';
import { assertWallActive, type WallCommandContext } from '../wall-command';
import { scanRead, scanSlotCounts, scanWhyNoOrder, scanWrite, type CandidateJson, type SlotJson } from '../queries/scan.queries';

/** A candidate line for chooseOrder, with its row (the line's figures and its slot). */
type Candidate = OrderCandidate & { row: CandidateJson };

function scanRequestHash(cmd: Pick<CommandPayloads['item.scan'], 'sessionToken' | 'barcode' | 'barcodeInputMethod'>): string {
  return createHash('sha256').update(JSON.stringify([cmd.sessionToken, cmd.barcode, cmd.barcodeInputMethod])).digest('hex');
}

/**
 * POST /sort-box-items (docs/api.md §7): resolve the barcode to a product, choose the order, choose the
 * slot, reserve one unit of the order line and light the slot in the sorter's color.
 * The busiest command of the floor: one read (scanRead) and one write with the command's record
 * (scanWrite) under the wall lock.
 */
export async function scanItem(ctx: WallCommandContext, cmd: CommandPayloads['item.scan'], idleTimeoutMs: number): Promise<SortBoxItemDto> {
  const { db, wall, now, emit, note } = ctx;
  const requestHash = scanRequestHash(cmd);
  // Keys are the sorter's own: two sorters' devices may well both count 1, 2, 3…
  const idempotencyKey = cmd.idempotencyKey ? `${cmd.userId}:${cmd.idempotencyKey}` : null;
  const { barcode } = cmd;
  let sku = '';
  // The same for every round: the new item's transition and the session's next expiry.
  const scanned = decideOrRefuse(sortBoxItemMachine, SORT_BOX_ITEM_ABSENT, {}, { type: 'SCAN' }, {});
  const expiresAt = sessionExpiresAt(now, idleTimeoutMs);

  // Another wall may reserve the same line between our read and our write; the write then changes
  // nothing and we choose again from fresh rows.
  for (let round = 0; round < 5; round++) {
    const [session] = await scanRead(db, {
      clientId: cmd.clientId, wallId: wall.id, warehouseId: wall.warehouseId ?? null, token: cmd.sessionToken, code: barcode.toUpperCase(), idempotencyKey,
    });
    if (idempotencyKey && session.prior_operation !== null) {
      if (session.prior_operation !== 'item.scan' || session.prior_request_hash !== requestHash) {
        throw new AppError('idempotency-key-reused', `Idempotency-Key '${cmd.idempotencyKey}' was already used for a different request; use a new key for a new scan.`);
      }
      return session.prior_body as SortBoxItemDto;
    }
    if (session.session_id === null) throw unknownSessionToken();
    note({ sessionId: session.session_id, picklistId: session.picklist_id });
    assertOwnSession(session.user_id, cmd.userId);
    assertSessionActive({ status: session.status, endReason: session.end_reason, endedAt: session.ended_at });
    assertWallActive(wall);
    const code = session.product_id === null ? null : { product_id: session.product_id, sku: session.sku! };
    if (!code) {
      throw new AppError('barcode-not-recognized', `Barcode '${barcode}' matches no SKU, UPC, shadow SKU or alias in your catalog. Check the label, or key in the SKU.`);
    }
    sku = code.sku;

    const candidates: Candidate[] = session.candidates.map((r) => ({
      orderId: r.order_id,
      priority: r.priority,
      orderDate: new Date(r.order_date),
      slotId: r.slot_id,
      remainingUnits: r.qty - r.confirmed_qty - r.pending_qty,
      row: r,
    }));
    const chosen = chooseOrder(candidates)?.row;
    if (!chosen) throw await noFulfillableOrder(ctx, cmd.clientId, code.sku, barcode, session.picklist_id);
    note({ orderId: chosen.order_id });

    const slot: SlotJson | null =
      chosen.slot_id === null
        ? chooseSlot(null, session.empty_slot ? [session.empty_slot] : [])
        : { id: chosen.slot_id, serial_number: chosen.slot_serial_number!, crc: chosen.slot_crc!, position: chosen.slot_position!, status: 'Sorting' };
    if (!slot) throw await noEmptySlot(ctx);

    let slotStatus = slot.status;
    if (slot.status === 'Empty') {
      const d = decideOrRefuse(slotMachine, slot.status, {}, { type: 'ASSIGN' }, { slot });
      slotStatus = d.value as SlotStatus;
    }
    // The line as it will be once this unit is reserved (the write holds only if it is unchanged till then).
    const line = { qty: chosen.qty, confirmedQty: chosen.confirmed_qty, pendingQty: chosen.pending_qty + 1 };
    const dto = toItemDto(
      {
        id: session.item_id, wallId: wall.id, status: 'PendingConfirmation', units: 1, confirmedUnits: 0, orderId: chosen.order_id,
        sku: code.sku, barcode, barcodeInputMethod: cmd.barcodeInputMethod, userId: cmd.userId, color: session.color,
        createdAt: now, confirmedAt: null, cancelledAt: null,
      },
      slot,
      line,
    );
    const sortBox = toSortBoxDto({ id: slot.id, wallId: wall.id, serialNumber: slot.serial_number, crc: slot.crc, position: slot.position, status: slotStatus, orderId: chosen.order_id });
    // What the hub needs to light the slot: its crc and position, the sorter's color.
    for (const e of scanned.emits) emit(e, { item: dto, sortBox, color: dto.color, colorHex: dto.colorHex });
    const [written] = await scanWrite(db, {
      ...ctx.record(dto),
      clientId: cmd.clientId, wallId: wall.id, now,
      orderItemId: chosen.order_item_id, qty: chosen.qty, confirmedQty: chosen.confirmed_qty, pendingQty: chosen.pending_qty,
      orderId: chosen.order_id, slotId: slot.id, crc: slot.crc, assignSlot: slot.status === 'Empty', slotStatus,
      sessionId: session.session_id, expiresAt,
      itemId: session.item_id, productId: code.product_id, sku: code.sku, barcode, barcodeInputMethod: cmd.barcodeInputMethod,
      userId: cmd.userId, color: session.color, idempotencyKey, requestHash,
    });
    if (written.reserved === 1) return dto;
    ctx.unrecord();
  }
  throw new AppError('no-fulfillable-order', `Every order needing SKU '${sku}' was taken by other scans meanwhile; scan again.`);
}

async function noFulfillableOrder(
  { db, wall }: WallCommandContext,
  clientId: number,
  sku: string,
  barcode: string,
  picklistId: number | null,
): Promise<AppError> {
  // Why nothing matched, so the floor knows whether the unit is extra or just early/late.
  const [why] = await scanWhyNoOrder(db, { clientId, sku, warehouseId: wall.warehouseId ?? null, picklistId });
  const scope = [why?.warehouse_name ? `of warehouse '${why.warehouse_name}'` : null, picklistId !== null ? `in picklist ${picklistId}` : null]
    .filter(Boolean)
    .join(' ');
  const where = scope ? ` ${scope}` : '';
  const scanned = barcode.toUpperCase() === sku.toUpperCase() ? '' : ` (scanned '${barcode}')`;
  const aside = 'Put the unit aside for a supervisor.';
  if (!why || why.orders === 0) {
    return new AppError('no-fulfillable-order', `No open order${where} contains SKU '${sku}'${scanned}. ${aside}`);
  }
  const one = why.orders === 1;
  if (why.needing > 0) {
    const orders = why.needing === 1 ? 'open order' : `${why.needing} open orders`;
    return new AppError(
      'no-fulfillable-order',
      `The ${orders}${where} that still ${why.needing === 1 ? 'needs' : 'need'} SKU '${sku}'${scanned} ${isAre(why.needing)} being sorted on another wall; sort the unit there.`,
    );
  }
  // Every open order with the sku is fully sorted, or awaits confirmation of its last units, or some of each.
  const pending = why.orders - why.sorted;
  const state =
    pending === 0 ? 'is already fully sorted'
      : why.sorted === 0 ? 'has its remaining units scanned and awaiting confirmation'
        : `is already fully sorted (${why.sorted}) or has its remaining units scanned and awaiting confirmation (${pending})`;
  return new AppError(
    'no-fulfillable-order',
    `${one ? 'The only open order' : `Every one of the ${why.orders} open orders`}${where} that ${one ? 'contains' : 'contain'} SKU '${sku}'${scanned} ${state}. ${aside}`,
  );
}

async function noEmptySlot({ db, wall }: WallCommandContext): Promise<AppError> {
  const [{ total, complete }] = await scanSlotCounts(db, { wallId: wall.id });
  if (total === 0) {
    return new AppError('no-empty-slot', `Wall '${wall.name}' has no slots attached; a Manager attaches them with PUT /walls/${wall.id}/sort-boxes.`);
  }
  const waiting = complete ? ` (${complete === total ? (total === 1 ? 'complete' : 'all complete') : `${complete} complete`}, waiting for the shipper)` : '';
  return new AppError(
    'no-empty-slot',
    total === 1
      ? `The only slot of wall '${wall.name}' holds an order${waiting}; release it or attach more slots.`
      : `All ${total} slots of wall '${wall.name}' hold orders${waiting}; release a completed slot or attach more slots.`,
  );
}
