import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { SqlClient } from '../shared/db/sql-pool';
import { lockWall } from '../workers/sorting/queries/command.queries';
import { scanRead, scanWrite } from '../workers/sorting/queries/scan.queries';
import type { FloorFixture } from './bench-seed';
import { cpuMs } from './cpu-usage';
import { explainNamed, type ExplainFigure } from './pg-insight';

/**
 * The floor of a scan in PostgreSQL: the scan's own statements (workers/sorting/queries: lock the wall,
 * read session, product, candidate lines and slot, write reservation, item and record; begin and commit
 * around them), run sequentially on one connection, with none of the service's layers and no decisions.
 * Returns ms per transaction and the CPU ms per transaction of its PostgreSQL backend and of this
 * (client) process.
 */
export async function measurePgFloor(
  databaseUrl: string,
  f: FloorFixture,
  n: number,
  // Named (prepared) statements, as the worker runs them by default: parsed and planned once per connection.
  opts: { prepared?: boolean } = {},
): Promise<{ samples: number[]; cpuPerTxMs: { postgres: number; client: number } }> {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  const db = new SqlClient(pg, opts.prepared ?? false);
  const samples: number[] = [];
  const { rows } = await pg.query<{ pid: number }>('select pg_backend_pid() as pid');
  const backend = rows[0].pid;
  const pgBefore = cpuMs(backend) ?? NaN;
  const clientBefore = process.cpuUsage();
  try {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await pg.query('begin');
      try {
        const commandId = randomUUID();
        const [wall] = await lockWall(db, { commandId, wallId: f.wallId, clientId: f.clientId });
        const [read] = await scanRead(db, {
          clientId: f.clientId, wallId: f.wallId, warehouseId: wall.warehouse_id, token: f.sessionToken, code: f.barcode.toUpperCase(), idempotencyKey: null,
        });
        const line = read.candidates[0];
        const now = new Date();
        await scanWrite(db, {
          events: '[]', commandId, clientId: f.clientId, wallId: f.wallId, command: 'item.scan', partition: 0, jobId: i, result: '{}', now,
          orderItemId: line.order_item_id, qty: line.qty, confirmedQty: line.confirmed_qty, pendingQty: line.pending_qty, orderId: line.order_id,
          slotId: line.slot_id!, crc: line.slot_crc!, assignSlot: false, slotStatus: 'Sorting', sessionId: f.sessionId, expiresAt: now,
          itemId: read.item_id, productId: read.product_id!, sku: read.sku!, barcode: f.barcode, barcodeInputMethod: 'Scanned',
          userId: f.userId, color: read.color, idempotencyKey: null, requestHash: '',
        });
        await pg.query('commit');
      } catch (err) {
        await pg.query('rollback');
        throw err;
      }
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
 * EXPLAIN (ANALYZE, BUFFERS) of the statements a scan reads with (lock the wall, the scan's read), for a
 * sorter's session on the data as it stands: how many buffers and how long one scan's read costs, and
 * whether the planner's estimate held (bench/pg-insight.ts). Nothing is changed.
 */
export async function explainScanRead(databaseUrl: string, f: Omit<FloorFixture, 'sessionId' | 'userId'>): Promise<ExplainFigure[]> {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const lock = await explainNamed(pg, lockWall, { commandId: randomUUID(), wallId: f.wallId, clientId: f.clientId });
    const [wall] = await lockWall(new SqlClient(pg, false), { commandId: randomUUID(), wallId: f.wallId, clientId: f.clientId });
    const read = await explainNamed(pg, scanRead, {
      clientId: f.clientId, wallId: f.wallId, warehouseId: wall!.warehouse_id, token: f.sessionToken, code: f.barcode.toUpperCase(), idempotencyKey: null,
    });
    return [lock, read];
  } finally {
    await pg.end();
  }
}
