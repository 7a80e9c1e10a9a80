import { createHash } from 'node:crypto';
import { AppError } from '../../../shared/errors/app-error';
import { IdempotencyRecord, SortBox, SortBoxItem, Warehouse, type ISortBox } from '../../../shared/db/entities';
import { chooseOrder, type OrderCandidate } from '../../../shared/domain/order-choice';
import { chooseSlot } from '../../../shared/domain/slot-choice';
import type { OrderPriority } from '../../../shared/domain/priority';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { decide } from '../../../machines/decide';
import { slotMachine } from '../../../machines/slot.machine';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { sessionByToken, touchSession } from '../session-access';
import type { WallCommandContext } from '../wall-command';

interface CandidateRow {
  order_item_id: number;
  order_id: number;
  priority: OrderPriority;
  order_date: Date;
  qty: number;
  confirmed_qty: number;
  pending_qty: number;
  slot_id: number | null;
}

type Candidate = OrderCandidate & { orderItemId: number; qty: number; confirmedQty: number; pendingQty: number };

// How many candidates the database preselects, in the same order as the pure rule; the rule decides.
const CANDIDATE_LIMIT = 20;

/**
 * Lines of the sku that still need units, of unshipped, non-drop-ship orders of the wall's
 * warehouse (and the session's picklist), that are in no slot or in a slot of this wall.
 */
const CANDIDATES_SQL = `
select oi.id as order_item_id, o.id as order_id, o.priority, o.order_date, oi.qty, oi.confirmed_qty, oi.pending_qty,
       sb.id as slot_id
  from order_item oi
  join orders o on o.client_id = oi.client_id and o.id = oi.order_id
  left join sort_box sb on sb.client_id = o.client_id and sb.order_id = o.id
 where oi.client_id = ? and oi.sku = ? and oi.qty > oi.confirmed_qty + oi.pending_qty
   and o.status = 'Unshipped' and not o.is_drop_ship
   and (?::int is null or o.warehouse_id = ?::int)
   and (?::int is null or exists (select 1 from picklist_order po
                                   where po.client_id = o.client_id and po.picklist_id = ?::int and po.order_id = o.id))
   and (sb.id is null or (sb.wall_id = ? and sb.status = 'Sorting'))
 order by (sb.id is not null) desc, o.priority_rank desc, o.order_date asc, o.id asc
 limit ${CANDIDATE_LIMIT}`;

export function scanRequestHash(cmd: Pick<CommandPayloads['item.scan'], 'sessionToken' | 'barcode' | 'barcodeInputMethod'>): string {
  return createHash('sha256').update(JSON.stringify([cmd.sessionToken, cmd.barcode, cmd.barcodeInputMethod])).digest('hex');
}

/**
 * POST /sort-box-items (contract 7): resolve the barcode to a product, choose the order, choose the
 * slot, reserve one unit of the order line and light the slot in the sorter's color.
 */
export async function scanItem(
  { tx, wall, now, emit }: WallCommandContext,
  cmd: CommandPayloads['item.scan'],
  idleTimeoutMs: number,
): Promise<SortBoxItemDto> {
  const requestHash = scanRequestHash(cmd);
  if (cmd.idempotencyKey) {
    const prior = await tx.findOne(IdempotencyRecord, { clientId: cmd.clientId, idempotencyKey: cmd.idempotencyKey });
    if (prior) {
      if (prior.operation !== 'item.scan' || prior.requestHash !== requestHash) {
        throw new AppError('idempotency-key-reused', `Idempotency-Key '${cmd.idempotencyKey}' was already used for a different request; use a new key for a new scan.`);
      }
      return prior.body as SortBoxItemDto;
    }
  }

  const session = await sessionByToken(tx, cmd.clientId, wall.id, cmd.sessionToken);
  if (session.userId !== cmd.userId) {
    throw new AppError('forbidden', 'This session token belongs to another sorter; connect to the wall with your own account.');
  }
  touchSession(session, now, idleTimeoutMs);
  if (!wall.isActive) {
    throw new AppError('wall-inactive', `Wall '${wall.name}' is inactive; a Manager can activate it in the hub.`);
  }

  const barcode = cmd.barcode.trim();
  const [code] = await tx.execute<{ product_id: number; sku: string }[]>(
    `select pc.product_id, p.sku from product_code pc join product p on p.id = pc.product_id
      where pc.client_id = ? and pc.code = ? order by pc.kind, pc.product_id limit 1`,
    [cmd.clientId, barcode.toUpperCase()],
  );
  if (!code) {
    throw new AppError('barcode-not-recognized', `Barcode '${barcode}' matches no SKU, UPC, shadow SKU or alias in your catalog. Check the label, or key in the SKU.`);
  }

  // Another wall may reserve the same line between our read and our update; the guarded update
  // then matches nothing and we choose again from fresh rows.
  for (let round = 0; round < 5; round++) {
    const rows = await tx.execute<CandidateRow[]>(CANDIDATES_SQL, [
      cmd.clientId, code.sku, wall.warehouseId ?? null, wall.warehouseId ?? null, session.picklistId ?? null, session.picklistId ?? null, wall.id,
    ]);
    const candidates: Candidate[] = rows.map((r) => ({
      orderId: r.order_id,
      priority: r.priority,
      orderDate: new Date(r.order_date),
      slotId: r.slot_id,
      remainingUnits: r.qty - r.confirmed_qty - r.pending_qty,
      orderItemId: r.order_item_id,
      qty: r.qty,
      confirmedQty: r.confirmed_qty,
      pendingQty: r.pending_qty,
    }));
    const order = chooseOrder(candidates);
    if (!order) throw await noFulfillableOrder(tx, wall, cmd.clientId, code.sku, barcode, session.picklistId ?? null);

    let slot: ISortBox | null;
    if (order.slotId !== null) {
      slot = await tx.findOne(SortBox, { id: order.slotId });
    } else {
      const empty = await tx.find(SortBox, { wallId: wall.id, status: 'Empty' }, { orderBy: { position: 'asc' }, limit: 1 });
      slot = chooseSlot(null, empty);
      if (!slot) throw await noEmptySlot(tx, wall);
    }
    if (!slot) continue;

    const reserved = await tx.execute<{ qty: number; confirmed_qty: number; pending_qty: number }[]>(
      `update order_item set pending_qty = pending_qty + 1
        where id = ? and qty > confirmed_qty + pending_qty returning qty, confirmed_qty, pending_qty`,
      [order.orderItemId],
    );
    if (reserved.length === 0) continue;

    if (slot.status === 'Empty') {
      const d = decide(slotMachine, slot.status, {}, { type: 'ASSIGN' });
      if (!d.ok) throw new AppError('slot-not-empty', d.detail ?? `Slot ${slot.crc} is not empty.`);
      slot.status = d.value as ISortBox['status'];
      slot.orderId = order.orderId;
      slot.assignedAt = now;
    }
    const item = tx.create(SortBoxItem, {
      clientId: cmd.clientId,
      wallId: wall.id,
      sortBoxId: slot.id,
      crc: slot.crc,
      orderId: order.orderId,
      orderItemId: order.orderItemId,
      productId: code.product_id,
      sku: code.sku,
      barcode,
      barcodeInputMethod: cmd.barcodeInputMethod,
      userId: cmd.userId,
      sessionId: session.id,
      color: session.color,
      units: 1,
      confirmedUnits: 0,
      status: 'PendingConfirmation',
      createdAt: now,
      confirmedAt: null,
      cancelledAt: null,
    });
    await tx.flush();
    const line = reserved[0];
    const dto = toItemDto(item, slot, { qty: line.qty, confirmedQty: line.confirmed_qty, pendingQty: line.pending_qty });
    // What the hub needs to light the slot: its crc and position, the sorter's color.
    emit('sort-box-item.created', { item: dto, sortBox: toSortBoxDto(slot), color: dto.color, colorHex: dto.colorHex });
    if (cmd.idempotencyKey) {
      tx.create(IdempotencyRecord, {
        clientId: cmd.clientId,
        idempotencyKey: cmd.idempotencyKey,
        operation: 'item.scan',
        requestHash,
        status: 200,
        body: dto,
        createdAt: now,
      });
    }
    return dto;
  }
  throw new AppError('no-fulfillable-order', `Every order needing SKU '${code.sku}' was taken by other scans meanwhile; scan again.`);
}

async function noFulfillableOrder(
  tx: WallCommandContext['tx'],
  wall: WallCommandContext['wall'],
  clientId: number,
  sku: string,
  barcode: string,
  picklistId: number | null,
): Promise<AppError> {
  const warehouse = wall.warehouseId ? await tx.findOne(Warehouse, { clientId, id: wall.warehouseId }) : null;
  const scope = [warehouse ? `of warehouse '${warehouse.name}'` : null, picklistId !== null ? `in picklist ${picklistId}` : null]
    .filter(Boolean)
    .join(' ');
  const scanned = barcode.toUpperCase() === sku.toUpperCase() ? '' : ` (scanned '${barcode}')`;
  return new AppError(
    'no-fulfillable-order',
    `No unshipped order ${scope ? `${scope} ` : ''}still needs SKU '${sku}'${scanned}: every unit is sorted or scanned already. Put the unit aside for a supervisor.`,
  );
}

async function noEmptySlot(tx: WallCommandContext['tx'], wall: WallCommandContext['wall']): Promise<AppError> {
  const total = await tx.count(SortBox, { wallId: wall.id });
  if (total === 0) {
    return new AppError('no-empty-slot', `Wall '${wall.name}' has no slots attached; a Manager attaches them with PUT /walls/${wall.id}/sort-boxes.`);
  }
  const complete = await tx.count(SortBox, { wallId: wall.id, status: 'Complete' });
  return new AppError(
    'no-empty-slot',
    `All ${total} slots of wall '${wall.name}' hold orders${complete ? ` (${complete} complete, waiting for the shipper)` : ''}; release a completed slot or attach more slots.`,
  );
}
