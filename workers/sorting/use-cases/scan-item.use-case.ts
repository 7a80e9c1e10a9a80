import { createHash } from 'node:crypto';
import { AppError } from '../../../shared/errors/app-error';
import { isAre } from '../../../shared/text/wording';
import { chooseOrder, type OrderCandidate } from '../../../shared/domain/order-choice';
import { chooseSlot } from '../../../shared/domain/slot-choice';
import type { CommandPayloads } from '../../../shared/commands/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { slotMachine } from '../../../machines/slot.machine';
import { SORT_BOX_ITEM_ABSENT, sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { assertOwnSession, assertSessionActive, assertWallActive, sessionOfToken, touchSession } from '../session-access';
import type { CommandContext } from '../actor/wall-actor';
import type { LineFigures } from '../actor/wall-changes';
import type { IdempotentAnswer, LineRow, OrderRow, SessionRow, SlotRow, WallState } from '../actor/wall-state';

/** A candidate for chooseOrder: the line (with the figures it was decided on), its order, its slot on this wall if any. */
type Candidate = OrderCandidate & { line: LineFigures & { id: number }; order: OrderRow; fromDatabase: boolean };

function scanRequestHash(cmd: Pick<CommandPayloads['item.scan'], 'sessionToken' | 'barcode' | 'barcodeInputMethod'>): string {
  return createHash('sha256').update(JSON.stringify([cmd.sessionToken, cmd.barcode, cmd.barcodeInputMethod])).digest('hex');
}

/** The first answer under a key, or idempotency-key-reused for a different request. */
function replay(cmd: CommandPayloads['item.scan'], prior: IdempotentAnswer, requestHash: string): SortBoxItemDto {
  if (prior.operation !== 'item.scan' || prior.requestHash !== requestHash) {
    throw new AppError('idempotency-key-reused', `Idempotency-Key '${cmd.idempotencyKey}' was already used for a different request; use a new key for a new scan.`);
  }
  return prior.body as SortBoxItemDto;
}

/**
 * POST /sort-box-items (docs/api.md §7): resolve the barcode to a product, choose the order, choose the
 * slot, reserve one unit of the order line and light the slot in the sorter's color. The busiest
 * command of the floor: decided in the wall's memory, reading PostgreSQL only for a barcode the wall
 * has not seen and, when no order in the wall's slots needs the product, for the candidates (order
 * choice rule 1 leaves only orders in no slot then).
 */
export async function scanItem(ctx: CommandContext, cmd: CommandPayloads['item.scan']): Promise<SortBoxItemDto> {
  const requestHash = scanRequestHash(cmd);
  // Keys are the sorter's own: two sorters' devices may well both count 1, 2, 3…
  const key = cmd.idempotencyKey ? `${cmd.userId}:${cmd.idempotencyKey}` : null;
  const known = key ? ctx.state.idempotent(key) : undefined;
  if (known) return replay(cmd, known, requestHash);
  try {
    const dto = await decideScan(ctx, cmd);
    if (key) ctx.changes.idempotency = { key, requestHash };
    return dto;
  } catch (err) {
    // A key the wall's memory does not know may still have answered before (another holder, a reload):
    // that answer wins over a refusal decided now. (A new scan's write finds it too: its record collides.)
    if (key && err instanceof AppError) {
      const prior = await ctx.reads.idempotency(key);
      if (prior) {
        ctx.state.rememberKey(key, prior);
        return replay(cmd, prior, requestHash);
      }
    }
    throw err;
  }
}

/** Orders the wall holds that may take the scanned sku (order choice rule 1), as the scan's SQL used to filter them. */
function candidatesInWall(state: WallState, session: SessionRow, sku: string): Candidate[] {
  const out: Candidate[] = [];
  for (const slot of state.slots.values()) {
    if (slot.status !== 'Sorting' || slot.orderId === null) continue;
    const order = state.orders.get(slot.orderId);
    if (!order || order.status !== 'Unshipped' || order.isDropShip) continue;
    if (state.wall.warehouseId !== null && order.warehouseId !== state.wall.warehouseId) continue;
    if (session.picklistId !== null && !order.picklistIds.includes(session.picklistId)) continue;
    const line = order.lines.find((l) => l.sku === sku);
    if (!line) continue;
    out.push(candidate(line, order, slot.id, false));
  }
  return out;
}

function candidate(line: LineFigures & { id: number }, order: OrderRow, slotId: number | null, fromDatabase: boolean): Candidate {
  return {
    orderId: order.id,
    priority: order.priority,
    orderDate: order.orderDate,
    slotId,
    remainingUnits: line.qty - line.confirmedQty - line.pendingQty,
    line: { id: line.id, qty: line.qty, confirmedQty: line.confirmedQty, pendingQty: line.pendingQty },
    order,
    fromDatabase,
  };
}

async function decideScan(ctx: CommandContext, cmd: CommandPayloads['item.scan']): Promise<SortBoxItemDto> {
  const { state, changes, now, note } = ctx;
  const { barcode } = cmd;
  const session = await sessionOfToken(ctx, cmd.sessionToken);
  note({ sessionId: session.id, picklistId: session.picklistId });
  assertOwnSession(session.userId, cmd.userId);
  assertSessionActive(session);
  assertWallActive(state.wall);
  const product = await ctx.reads.product(barcode.toUpperCase());
  if (!product) {
    throw new AppError('barcode-not-recognized', `Barcode '${barcode}' matches no SKU, UPC, shadow SKU or alias in your catalog. Check the label, or key in the SKU.`);
  }
  const { sku } = product;

  let candidates = candidatesInWall(state, session, sku).filter((c) => c.remainingUnits > 0);
  if (candidates.length === 0) {
    candidates = (await ctx.reads.candidates(sku, session.picklistId)).map((c) => candidate(c.line, c.order, null, true));
  }
  const chosen = chooseOrder(candidates);
  if (!chosen) throw await noFulfillableOrder(ctx, sku, barcode, session.picklistId);
  note({ orderId: chosen.orderId });

  const slot: SlotRow | null = chosen.slotId !== null ? state.slots.get(chosen.slotId)! : chooseSlot(null, state.slotsByPosition());
  if (!slot) throw noEmptySlot(state);
  let taken = slot;
  if (slot.status === 'Empty') {
    const d = decideOrRefuse(slotMachine, slot.status, {}, { type: 'ASSIGN' }, { slot });
    taken = { ...slot, status: d.value as SlotRow['status'], orderId: chosen.orderId, assignedAt: now };
    changes.setSlot(taken);
  }
  const scanned = decideOrRefuse(sortBoxItemMachine, SORT_BOX_ITEM_ABSENT, {}, { type: 'SCAN' }, {});
  // The line once this unit is reserved; the write holds only if the line still has the figures the decision saw.
  const line: LineRow = { ...chosen.line, orderId: chosen.orderId, sku, pendingQty: chosen.line.pendingQty + 1 };
  changes.setLine(line, chosen.line);
  if (chosen.fromDatabase) {
    // The order enters the wall's memory as read: its other lines are guarded too, so a reload of the
    // order committed meanwhile (an upload waits for nothing of the wall's) makes the write decide again.
    changes.orders.push(chosen.order);
    for (const other of chosen.order.lines) if (other.id !== line.id) changes.setLine(other, other);
  }
  const item = {
    id: await ctx.itemId(),
    wallId: state.wall.id,
    sortBoxId: slot.id,
    crc: slot.crc,
    orderId: chosen.orderId,
    orderItemId: line.id,
    productId: product.productId,
    sku,
    barcode,
    barcodeInputMethod: cmd.barcodeInputMethod,
    userId: cmd.userId,
    sessionId: session.id,
    color: session.color,
    units: 1,
    confirmedUnits: 0,
    status: 'PendingConfirmation' as const,
    createdAt: now,
    confirmedAt: null,
    cancelledAt: null,
    requiresSerial: product.requiresSerial,
    serial: null,
  };
  changes.newItems.push(item);
  touchSession(ctx, session);
  const dto = toItemDto(item, slot, line);
  // What the hub needs to light the slot: its crc and position, the sorter's color.
  for (const e of scanned.emits) changes.emit(e, { item: dto, sortBox: toSortBoxDto(taken), color: dto.color, colorHex: dto.colorHex });
  return dto;
}

/** The refusal of a scan whose chosen line kept changing under it (other walls took the units first). */
export function scanContended(cmd: CommandPayloads['item.scan']): AppError {
  return new AppError('no-fulfillable-order', `Every order needing '${cmd.barcode}' was taken by other scans meanwhile; scan again.`);
}

async function noFulfillableOrder(ctx: CommandContext, sku: string, barcode: string, picklistId: number | null): Promise<AppError> {
  // Why nothing matched, so the floor knows whether the unit is extra or just early/late.
  const why = await ctx.reads.whyNoOrder(sku, picklistId);
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

function noEmptySlot(state: WallState): AppError {
  const wall = state.wall;
  const total = state.slots.size;
  let complete = 0;
  for (const s of state.slots.values()) if (s.status === 'Complete') complete++;
  if (total === 0) {
    return new AppError('no-empty-slot', `Wall '${wall.name}' has no slots attached yet; ask a Manager to attach them.`, { extensions: { wallId: wall.id } });
  }
  const waiting = complete ? ` (${complete === total ? (total === 1 ? 'complete' : 'all complete') : `${complete} complete`}, waiting for the shipper)` : '';
  return new AppError(
    'no-empty-slot',
    total === 1
      ? `The only slot of wall '${wall.name}' holds an order${waiting}; release it or attach more slots.`
      : `All ${total} slots of wall '${wall.name}' hold orders${waiting}; release a completed slot or attach more slots.`,
  );
}
