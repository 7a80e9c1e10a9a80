import { createHash } from 'node:crypto';
import { AppError } from '../../../shared/errors/app-error';
import { IdempotencyRecord, SortBox, Warehouse, type ISorterSession } from '../../../shared/db/entities';
import { chooseOrder, type OrderCandidate } from '../../../shared/domain/order-choice';
import { chooseSlot, type SlotStatus } from '../../../shared/domain/slot-choice';
import type { OrderPriority } from '../../../shared/domain/priority';
import type { CommandPayloads } from '../../../shared/queue/commands';
import type { SortBoxItemDto } from '../../../shared/dto/sorting.dto';
import { slotMachine } from '../../../machines/slot.machine';
import { SORT_BOX_ITEM_ABSENT, sortBoxItemMachine } from '../../../machines/sort-box-item.machine';
import { decideOrRefuse } from '../../../machines/refusals';
import { toItemDto, toSortBoxDto } from '../../../shared/dto/sorting.mappers';
import { assertSessionActive, sessionExpiresAt } from '../session-access';
import type { WallCommandContext } from '../wall-command';
import { PreparedSql, runPrepared } from '../prepared-sql';

interface CandidateRow {
  order_item_id: number;
  order_id: number;
  priority: OrderPriority;
  order_date: Date;
  qty: number;
  confirmed_qty: number;
  pending_qty: number;
  slot_id: number | null;
  slot_serial_number: string | null;
  slot_crc: string | null;
  slot_position: number | null;
}

interface SlotRow {
  id: number;
  serial_number: string;
  crc: string;
  position: number;
  status: SlotStatus;
}

interface SessionRow {
  id: number;
  user_id: number;
  picklist_id: number | null;
  color: string;
  status: ISorterSession['status'];
  end_reason: ISorterSession['endReason'];
  ended_at: Date | null;
}

type Candidate = OrderCandidate & { orderItemId: number; qty: number; confirmedQty: number; pendingQty: number; slot: SlotRow | null };

// How many candidates the database preselects, in the same order as the pure rule; the rule decides.
const CANDIDATE_LIMIT = 20;

/**
 * Lines of the sku that still need units, of unshipped, non-drop-ship orders of the wall's
 * warehouse (and the session's picklist), that are in no slot or in a slot of this wall.
 */
const CANDIDATES_SQL = new PreparedSql('scan-candidates', `
select oi.id as order_item_id, o.id as order_id, o.priority, o.order_date, oi.qty, oi.confirmed_qty, oi.pending_qty,
       sb.id as slot_id, sb.serial_number as slot_serial_number, sb.crc as slot_crc, sb.position as slot_position
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
 limit ${CANDIDATE_LIMIT}`);

// The open orders of the scan's scope that contain the sku, for the no-fulfillable-order detail.
const WHY_NO_ORDER_SQL = new PreparedSql('scan-why-no-order', `
select count(*)::int as orders,
       count(*) filter (where oi.qty > oi.confirmed_qty + oi.pending_qty)::int as needing,
       count(*) filter (where oi.confirmed_qty >= oi.qty)::int as sorted
  from order_item oi
  join orders o on o.client_id = oi.client_id and o.id = oi.order_id
 where oi.client_id = ? and oi.sku = ?
   and o.status = 'Unshipped' and not o.is_drop_ship
   and (?::int is null or o.warehouse_id = ?::int)
   and (?::int is null or exists (select 1 from picklist_order po
                                   where po.client_id = o.client_id and po.picklist_id = ?::int and po.order_id = o.id))`);

export function scanRequestHash(cmd: Pick<CommandPayloads['item.scan'], 'sessionToken' | 'barcode' | 'barcodeInputMethod'>): string {
  return createHash('sha256').update(JSON.stringify([cmd.sessionToken, cmd.barcode, cmd.barcodeInputMethod])).digest('hex');
}

// The session and the product the barcode names, in one round trip (a left join: an unknown
// barcode still answers the session, so the refusal can say which is wrong).
const SESSION_AND_PRODUCT_SQL = new PreparedSql('scan-session-product', `
select s.id, s.user_id, s.picklist_id, s.color, s.status, s.end_reason, s.ended_at, code.product_id, code.sku
  from sorter_session s
  left join lateral (
    select pc.product_id, p.sku from product_code pc join product p on p.id = pc.product_id
     where pc.client_id = s.client_id and pc.code = ? order by pc.kind, pc.product_id limit 1
  ) code on true
 where s.token = ? and s.client_id = ? and s.wall_id = ?`);

const EMPTY_SLOT_SQL = new PreparedSql(
  'scan-empty-slot',
  `select id, serial_number, crc, position, status from sort_box where wall_id = ? and status = 'Empty' order by position limit 1`,
);

// Reserves one unit; matches nothing if another wall took the last one since the candidates were read.
const RESERVE_SQL = new PreparedSql('scan-reserve', `
update order_item set pending_qty = pending_qty + 1
 where id = ? and qty > confirmed_qty + pending_qty returning qty, confirmed_qty, pending_qty`);

// The scan's writes in one statement: the slot takes the order (when it was Empty), the session
// records activity, the item is created.
const WRITE_SQL = new PreparedSql('scan-write', `
with slot as (
  update sort_box set status = ?, order_id = ?, assigned_at = ? where id = ? and ?::boolean returning 1
), session as (
  update sorter_session set last_activity_at = ?, expires_at = ? where id = ? returning 1
)
insert into sort_box_item (client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode,
                           barcode_input_method, user_id, session_id, color, units, confirmed_units, status, created_at)
values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 0, 'PendingConfirmation', ?)
returning id`);

/**
 * POST /sort-box-items (docs/api.md §7): resolve the barcode to a product, choose the order, choose the
 * slot, reserve one unit of the order line and light the slot in the sorter's color.
 * The busiest command of the floor, so its reads and writes are plain SQL, a few round trips.
 */
export async function scanItem(
  { tx, wall, now, emit, note }: WallCommandContext,
  cmd: CommandPayloads['item.scan'],
  idleTimeoutMs: number,
): Promise<SortBoxItemDto> {
  const requestHash = scanRequestHash(cmd);
  // Keys are the sorter's own: two sorters' devices may well both count 1, 2, 3…
  const idempotencyKey = cmd.idempotencyKey ? `${cmd.userId}:${cmd.idempotencyKey}` : null;
  if (idempotencyKey) {
    const prior = await tx.findOne(IdempotencyRecord, { clientId: cmd.clientId, idempotencyKey });
    if (prior) {
      if (prior.operation !== 'item.scan' || prior.requestHash !== requestHash) {
        throw new AppError('idempotency-key-reused', `Idempotency-Key '${cmd.idempotencyKey}' was already used for a different request; use a new key for a new scan.`);
      }
      return prior.body as SortBoxItemDto;
    }
  }

  const { barcode } = cmd;
  const [session] = await runPrepared<SessionRow & { product_id: number | null; sku: string | null }>(tx, SESSION_AND_PRODUCT_SQL, [
    barcode.toUpperCase(), cmd.sessionToken, cmd.clientId, wall.id,
  ]);
  if (!session) throw new AppError('not-found', 'This session token is not known on this wall; connect to the wall again.');
  note({ sessionId: session.id, picklistId: session.picklist_id });
  if (session.user_id !== cmd.userId) {
    throw new AppError('forbidden', 'This session token belongs to another sorter; connect to the wall with your own account.');
  }
  assertSessionActive({ status: session.status, endReason: session.end_reason, endedAt: session.ended_at });
  if (!wall.isActive) {
    throw new AppError('wall-inactive', `Wall '${wall.name}' is inactive; a Manager can activate it in the hub.`);
  }
  const code = session.product_id === null ? null : { product_id: session.product_id, sku: session.sku! };
  if (!code) {
    throw new AppError('barcode-not-recognized', `Barcode '${barcode}' matches no SKU, UPC, shadow SKU or alias in your catalog. Check the label, or key in the SKU.`);
  }

  // Another wall may reserve the same line between our read and our update; the guarded update
  // then matches nothing and we choose again from fresh rows.
  for (let round = 0; round < 5; round++) {
    const rows = await runPrepared<CandidateRow>(tx, CANDIDATES_SQL, [
      cmd.clientId, code.sku, wall.warehouseId ?? null, wall.warehouseId ?? null, session.picklist_id, session.picklist_id, wall.id,
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
      slot: r.slot_id === null ? null : { id: r.slot_id, serial_number: r.slot_serial_number!, crc: r.slot_crc!, position: r.slot_position!, status: 'Sorting' },
    }));
    const order = chooseOrder(candidates);
    if (!order) throw await noFulfillableOrder(tx, wall, cmd.clientId, code.sku, barcode, session.picklist_id);
    note({ orderId: order.orderId });

    let slot = order.slot;
    if (!slot) {
      const empty = await runPrepared<SlotRow>(tx, EMPTY_SLOT_SQL, [wall.id]);
      slot = chooseSlot(null, empty);
      if (!slot) throw await noEmptySlot(tx, wall);
    }

    const [line] = await runPrepared<{ qty: number; confirmed_qty: number; pending_qty: number }>(tx, RESERVE_SQL, [order.orderItemId]);
    if (!line) continue;

    let slotStatus = slot.status;
    if (slot.status === 'Empty') {
      const d = decideOrRefuse(slotMachine, slot.status, {}, { type: 'ASSIGN' }, { slot });
      slotStatus = d.value as SlotStatus;
    }
    const scanned = decideOrRefuse(sortBoxItemMachine, SORT_BOX_ITEM_ABSENT, {}, { type: 'SCAN' }, {});
    const expiresAt = sessionExpiresAt(now, idleTimeoutMs);
    const [created] = await runPrepared<{ id: number }>(tx, WRITE_SQL, [
      slotStatus, order.orderId, now, slot.id, slot.status === 'Empty',
      now, expiresAt, session.id,
      cmd.clientId, wall.id, slot.id, slot.crc, order.orderId, order.orderItemId, code.product_id, code.sku, barcode,
      cmd.barcodeInputMethod, cmd.userId, session.id, session.color, now,
    ]);
    const dto = toItemDto(
      {
        id: created.id, wallId: wall.id, status: 'PendingConfirmation', units: 1, confirmedUnits: 0, orderId: order.orderId,
        sku: code.sku, barcode, barcodeInputMethod: cmd.barcodeInputMethod, userId: cmd.userId, color: session.color,
        createdAt: now, confirmedAt: null, cancelledAt: null,
      },
      slot,
      { qty: line.qty, confirmedQty: line.confirmed_qty, pendingQty: line.pending_qty },
    );
    const sortBox = toSortBoxDto({ id: slot.id, wallId: wall.id, serialNumber: slot.serial_number, crc: slot.crc, position: slot.position, status: slotStatus, orderId: order.orderId });
    // What the hub needs to light the slot: its crc and position, the sorter's color.
    for (const e of scanned.emits) emit(e, { item: dto, sortBox, color: dto.color, colorHex: dto.colorHex });
    if (idempotencyKey) {
      tx.create(IdempotencyRecord, {
        clientId: cmd.clientId,
        idempotencyKey,
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
  const where = scope ? ` ${scope}` : '';
  const scanned = barcode.toUpperCase() === sku.toUpperCase() ? '' : ` (scanned '${barcode}')`;
  // Why nothing matched, so the floor knows whether the unit is extra or just early/late.
  const [why] = await runPrepared<{ orders: number; needing: number; sorted: number }>(tx, WHY_NO_ORDER_SQL, [
    clientId, sku, wall.warehouseId ?? null, wall.warehouseId ?? null, picklistId, picklistId,
  ]);
  const aside = 'Put the unit aside for a supervisor.';
  if (!why || why.orders === 0) {
    return new AppError('no-fulfillable-order', `No open order${where} contains SKU '${sku}'${scanned}. ${aside}`);
  }
  if (why.needing > 0) {
    return new AppError(
      'no-fulfillable-order',
      `The ${why.needing === 1 ? 'open order' : `${why.needing} open orders`}${where} that still ${why.needing === 1 ? 'needs' : 'need'} SKU '${sku}'${scanned} ${why.needing === 1 ? 'is' : 'are'} being sorted on another wall; sort the unit there.`,
    );
  }
  const pending = why.orders - why.sorted;
  const state =
    why.orders === 1
      ? why.sorted === 1 ? 'is already fully sorted' : 'has its remaining units scanned and awaiting confirmation'
      : pending === 0 ? 'is already fully sorted' : why.sorted === 0 ? 'has its remaining units scanned and awaiting confirmation'
        : `is already fully sorted (${why.sorted}) or has its remaining units scanned and awaiting confirmation (${pending})`;
  return new AppError(
    'no-fulfillable-order',
    `${why.orders === 1 ? 'The only open order' : `Every one of the ${why.orders} open orders`}${where} that ${why.orders === 1 ? 'contains' : 'contain'} SKU '${sku}'${scanned} ${state}. ${aside}`,
  );
}

async function noEmptySlot(tx: WallCommandContext['tx'], wall: WallCommandContext['wall']): Promise<AppError> {
  const total = await tx.count(SortBox, { wallId: wall.id });
  if (total === 0) {
    return new AppError('no-empty-slot', `Wall '${wall.name}' has no slots attached; a Manager attaches them with PUT /walls/${wall.id}/sort-boxes.`);
  }
  const complete = await tx.count(SortBox, { wallId: wall.id, status: 'Complete' });
  const waiting = complete ? ` (${complete === total ? (total === 1 ? 'complete' : 'all complete') : `${complete} complete`}, waiting for the shipper)` : '';
  return new AppError(
    'no-empty-slot',
    total === 1
      ? `The only slot of wall '${wall.name}' holds an order${waiting}; release it or attach more slots.`
      : `All ${total} slots of wall '${wall.name}' hold orders${waiting}; release a completed slot or attach more slots.`,
  );
}
