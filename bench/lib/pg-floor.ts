import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { SqlClient, WALL_ACTOR_APPLICATION_NAME } from '../../shared/db/sql-pool';
import { applyWallChanges, reserveIds } from '../../workers/sorting/queries/wall-write.queries';
import { productByCode, scanCandidates, scanCandidatesAnyWarehouse } from '../../workers/sorting/queries/wall-reads.queries';
import { cpuMs } from '../cpu-usage';
import { explainNamed, type ExplainFigure } from './pg-insight';

/** A wall of its own for the bare-PostgreSQL floor, so the probe never changes what the service serves. */
export interface FloorFixture {
  clientId: number;
  wallId: number;
  barcode: string;
  sessionId: number;
  sessionToken: string;
  userId: number;
}

/**
 * The floor of a scan in PostgreSQL: what a wall's actor sends for a scan whose order is already in
 * the wall (workers/sorting/queries: ONE fenced statement that reserves the unit on the line, creates
 * the item, records the session's activity, the applied command and its outbox event), run
 * sequentially on one connection in autocommit, with none of the service's layers and no decisions.
 * Returns ms per statement and the CPU ms per statement of its PostgreSQL backend and of this
 * (client) process.
 */
export async function measurePgFloor(
  databaseUrl: string,
  f: FloorFixture,
  n: number,
  // Named (prepared) statements, as the worker runs them by default: parsed and planned once per connection.
  opts: { prepared?: boolean } = {},
): Promise<{ samples: number[]; cpuPerTxMs: { postgres: number; client: number } }> {
  // As the actor's connections: the triggers that move a wall's version for other writers leave it out.
  const pg = new PgClient({ connectionString: databaseUrl, application_name: WALL_ACTOR_APPLICATION_NAME });
  await pg.connect();
  const db = new SqlClient(pg, opts.prepared ?? false);
  const samples: number[] = [];
  const { rows } = await pg.query<{ pid: number }>('select pg_backend_pid() as pid');
  const backend = rows[0].pid;
  // What the actor holds in memory: the wall's version, the line's figures, ids taken ahead.
  const { rows: [state] } = await pg.query<{ version: string; line_id: number; qty: number; confirmed_qty: number; pending_qty: number; order_id: number; slot_id: number; crc: string; product_id: number; sku: string }>(
    `select w.version, oi.id as line_id, oi.qty, oi.confirmed_qty, oi.pending_qty, oi.order_id, sb.id as slot_id, sb.crc, p.id as product_id, p.sku
       from wall w join sort_box sb on sb.wall_id = w.id join order_item oi on oi.client_id = sb.client_id and oi.order_id = sb.order_id
       join product p on p.client_id = oi.client_id and p.sku = oi.sku
      where w.id = $1 limit 1`,
    [f.wallId],
  );
  const [{ item_ids }] = await reserveIds(db, { items: n, sessions: 0 });
  let version = Number(state.version);
  let pending = state.pending_qty;
  const pgBefore = cpuMs(backend) ?? NaN;
  const clientBefore = process.cpuUsage();
  try {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const now = new Date();
      const item = {
        id: item_ids![i], sortBoxId: state.slot_id, crc: state.crc, orderId: state.order_id, orderItemId: state.line_id, productId: state.product_id,
        sku: state.sku, barcode: f.barcode, barcodeInputMethod: 'Scanned', userId: f.userId, sessionId: f.sessionId, color: 'Red', units: 1,
        confirmedUnits: 0, status: 'PendingConfirmation', createdAt: now, confirmedAt: null, cancelledAt: null, requiresSerial: false, serial: null,
      };
      await applyWallChanges(db, {
        clientId: f.clientId, wallId: f.wallId, expectedVersion: version, nextVersion: version + 1, wall: null,
        lines: JSON.stringify([{ id: state.line_id, qty: state.qty, confirmedQty: state.confirmed_qty, pendingQty: pending, newConfirmedQty: state.confirmed_qty, newPendingQty: pending + 1 }]),
        lineCount: 1, slotsVacated: '[]', slotsOccupied: '[]', slotsInserted: '[]', slotsDeleted: [],
        sessionsUpdated: JSON.stringify([{ id: f.sessionId, status: 'Connected', lastActivityAt: now, expiresAt: now }]), sessionsInserted: '[]',
        itemsUpdated: '[]', itemsInserted: JSON.stringify([item]), events: '[]',
        commandId: randomUUID(), command: 'item.scan', partition: 0, jobId: i, result: '{}', now, idempotency: null, itemIdRefill: 0, sessionIdRefill: 0,
      });
      version++;
      pending++;
      samples.push(performance.now() - t0);
    }
    const client = process.cpuUsage(clientBefore);
    const round = (v: number) => Math.round(v * 1000) / 1000;
    return {
      samples,
      cpuPerTxMs: { postgres: round(((cpuMs(backend) ?? NaN) - pgBefore) / n), client: round((client.user + client.system) / 1000 / n) },
    };
  } finally {
    await pg.end();
  }
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements a scan reads with when its wall holds no order that needs
 * the product (the barcode's product, the candidates: the sku's open lines of the wall's warehouse), for
 * the wall's data as it stands: how many buffers and how long that read costs, and whether the planner's
 * estimate held (bench/lib/pg-insight.ts). Nothing is changed.
 */
export async function explainScanRead(databaseUrl: string, f: Omit<FloorFixture, 'sessionId' | 'userId'>): Promise<ExplainFigure[]> {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const code = f.barcode.toUpperCase();
    const product = await explainNamed(pg, productByCode, { clientId: f.clientId, code });
    const [found] = await productByCode(new SqlClient(pg, false), { clientId: f.clientId, code });
    const { rows: [wall] } = await pg.query<{ warehouse_id: number | null }>('select warehouse_id from wall where id = $1', [f.wallId]);
    const read =
      wall?.warehouse_id == null
        ? await explainNamed(pg, scanCandidatesAnyWarehouse, { clientId: f.clientId, sku: found!.sku, picklistId: null })
        : await explainNamed(pg, scanCandidates, { clientId: f.clientId, sku: found!.sku, picklistId: null, warehouseId: wall.warehouse_id });
    return [product, read];
  } finally {
    await pg.end();
  }
}
