import { Client as PgClient } from 'pg';
import type { FloorFixture } from './bench-seed';
import { cpuMs } from './cpu-usage';

/**
 * The candidate query of workers/sorting/use-cases/scan-item.use-case.ts (CANDIDATES_SQL), with pg's
 * $n placeholders. Kept in step by hand: if the scan's query changes, change this one too.
 */
const CANDIDATES_SQL = `
select oi.id as order_item_id, o.id as order_id, o.priority, o.order_date, oi.qty, oi.confirmed_qty, oi.pending_qty,
       sb.id as slot_id, sb.crc as slot_crc, sb.position as slot_position
  from order_item oi
  join orders o on o.client_id = oi.client_id and o.id = oi.order_id
  left join sort_box sb on sb.client_id = o.client_id and sb.order_id = o.id
 where oi.client_id = $1 and oi.sku = $2 and oi.qty > oi.confirmed_qty + oi.pending_qty
   and o.status = 'Unshipped' and not o.is_drop_ship
   and ($3::int is null or o.warehouse_id = $3::int)
   and ($4::int is null or exists (select 1 from picklist_order po
                                   where po.client_id = o.client_id and po.picklist_id = $4::int and po.order_id = o.id))
   and (sb.id is null or (sb.wall_id = $5 and sb.status = 'Sorting'))
 order by (sb.id is not null) desc, o.priority_rank desc, o.order_date asc, o.id asc
 limit 20`;

/**
 * The floor of a scan in PostgreSQL: one transaction of the scan's essential shape (lock the wall,
 * resolve the barcode, choose among candidate lines, reserve a unit, insert the item, commit), run
 * sequentially on one connection, with none of the service's layers. Returns ms per transaction and
 * the CPU ms per transaction of its PostgreSQL backend and of this (client) process.
 */
export async function measurePgFloor(
  databaseUrl: string,
  f: FloorFixture,
  n: number,
  // Named (prepared) statements: parsed and planned once per connection instead of once per use.
  opts: { prepared?: boolean } = {},
): Promise<{ samples: number[]; cpuPerTxMs: { postgres: number; client: number } }> {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  const q = <R extends Record<string, unknown>>(name: string, text: string, values: unknown[] = []) =>
    pg.query<R>(opts.prepared ? { name, text, values } : { text, values });
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
        const { rows: walls } = await q<{ id: number; warehouse_id: number }>('floor-wall', 'select * from wall where id = $1 and client_id = $2 for update', [f.wallId, f.clientId]);
        const { rows: codes } = await q<{ product_id: number; sku: string }>(
          'floor-code',
          `select pc.product_id, p.sku from product_code pc join product p on p.id = pc.product_id
            where pc.client_id = $1 and pc.code = $2 order by pc.kind, pc.product_id limit 1`,
          [f.clientId, f.barcode.toUpperCase()],
        );
        const { rows: candidates } = await q<{ order_item_id: number; order_id: number; slot_id: number }>('floor-candidates', CANDIDATES_SQL, [
          f.clientId, codes[0].sku, walls[0].warehouse_id, null, f.wallId,
        ]);
        const line = candidates[0];
        await q(
          'floor-reserve',
          `update order_item set pending_qty = pending_qty + 1
            where id = $1 and qty > confirmed_qty + pending_qty returning qty, confirmed_qty, pending_qty`,
          [line.order_item_id],
        );
        await q(
          'floor-insert',
          `insert into sort_box_item (client_id, wall_id, sort_box_id, crc, order_id, order_item_id, product_id, sku, barcode, barcode_input_method,
                                      user_id, session_id, color, units, confirmed_units, status, created_at)
           values ($1, $2, $3, (select crc from sort_box where id = $3), $4, $5, $6, $7, $8, 'Scanned', $9, $10, 'Red', 1, 0, 'PendingConfirmation', now())
           returning id`,
          [f.clientId, f.wallId, line.slot_id, line.order_id, line.order_item_id, codes[0].product_id, codes[0].sku, f.barcode, f.userId, f.sessionId],
        );
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
