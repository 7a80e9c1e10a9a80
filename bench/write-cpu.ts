import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client as PgClient } from 'pg';
import { uuidv7 } from '../shared/db/time-ordered-uuid';
import { appliedRecord, applyConfirm, applyGroupScan, applyScan, lockGroupLines } from '../workers/sorting/queries/wall-write.queries';

/*
 * `npx tsx bench/write-cpu.ts`: PostgreSQL CPU per scan+confirm pair of the wall actor's writes alone
 * (docs/benchmarks.md "Where each miss comes from"). On a copy of a database the bench left (its
 * `_badday` database: the day's orders, walls, slots and history), one backend writes WRITE_PAIRS pairs
 * one after the other as the actor does a command alone: `apply-wall-changes:liek` (a keyed scan into
 * an order line's slot) then `:lue` (its confirm), named statements in autocommit, each with an event
 * and a record of the bench's own sizes. The backend's CPU time (/proc, user + system, WAL flushes
 * included) over the pairs after a warm-up, divided by the pairs: the same figure on a schema before
 * and after a change, on the same machine, without the bench's other processes and concurrency.
 * The copy is dropped at the end; the source database is not written. WRITE_MODE: `alone` (each
 * command its own statement, as above), `group` (the pair as a group written one statement per
 * command: begin, `lock-group-lines`, the scan's and the confirm's statements, commit) or `merged` (the
 * pair as a group written as the actor does: one `:liek` statement, the item inserted confirmed, both
 * events and both records). WRITE_SETUP: SQL run on the copy before the writes (a schema change to
 * try, or a migration's down to compare with: the same source, the same machine, rounds alternated).
 * WRITE_KEYS: the command and event ids the writes carry, `v7` (time-ordered, as the service makes
 * them) or `v4` (random). WRITE_HISTORY: rows of history added to the copy before the writes, each to
 * applied_command and outbox_event, keyed with random ids as a floor's older rows may be (a day of
 * commands and a week of events of a busy floor are millions): with an index larger than
 * PostgreSQL's shared buffers, a random key's insert touches a leaf page of its own. A checkpoint
 * starts the timed writes, so each leaf page's first change writes a whole-page image to the WAL, as
 * on a floor between two checkpoints. Besides the CPU: the WAL bytes per pair.
 *
 *   WRITE_SOURCE (sorting_bench_badday), WRITE_PAIRS (1000), WRITE_MODE (alone), WRITE_SETUP, WRITE_KEYS (v7),
 *   WRITE_HISTORY (0), DATABASE_URL (the server, any database)
 */

const SOURCE = process.env.WRITE_SOURCE ?? 'sorting_bench_badday';
const PAIRS = Number(process.env.WRITE_PAIRS ?? 1000);
const WARMUP = 50;
const MODE = (process.env.WRITE_MODE ?? 'alone') as 'alone' | 'group' | 'merged';
const KEYS = (process.env.WRITE_KEYS ?? 'v7') as 'v4' | 'v7';
const newId = KEYS === 'v4' ? randomUUID : () => uuidv7();
const HISTORY = Number(process.env.WRITE_HISTORY ?? 0);
const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const at = (db: string) => Object.assign(new URL(server.href), { pathname: `/${db}` }).href;

/** User + system CPU of a local process, in milliseconds (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function main(): Promise<void> {
  const copy = `${SOURCE}_write_cpu`;
  const admin = new PgClient({ connectionString: at('postgres') });
  await admin.connect();
  await admin.query(`drop database if exists "${copy}"`);
  await admin.query(`create database "${copy}" template "${SOURCE}"`);
  // The actor's own connection name: the triggers that move walls' versions leave it out.
  const c = new PgClient({ connectionString: at(copy), application_name: 'sorting:wall-actor' });
  try {
    if (process.env.WRITE_SETUP) {
      const setup = new PgClient({ connectionString: at(copy) });
      await setup.connect();
      await setup.query(process.env.WRITE_SETUP).finally(() => setup.end());
    }
    await c.connect();
    if (HISTORY > 0) {
      process.stdout.write(`adding ${HISTORY} rows of history to applied_command and outbox_event…\n`);
      await c.query(`
        insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at)
        select gen_random_uuid(), client_id, wall_id, name, partition, job_id, result, applied_at - interval '1 day'
          from (select * from applied_command limit 1) a cross join generate_series(1, $1)`, [HISTORY]);
      await c.query(`
        insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
        select gen_random_uuid(), client_id, wall_id, type, occurred_at - interval '7 days', data
          from (select * from outbox_event limit 1) o cross join generate_series(1, $1)`, [HISTORY]);
      await c.query('vacuum analyze applied_command, outbox_event');
    }
    const [{ pid }] = (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
    // Open lines, each written into the first slot of its client (the write checks the slot exists, not what it holds).
    const { rows: lines } = await c.query(`
      select sb.id as slot_id, sb.wall_id, sb.client_id, oi.order_id, sb.crc, oi.id as line_id, oi.qty, oi.confirmed_qty, oi.pending_qty, oi.sku, p.id as product_id
        from order_item oi cross join lateral (select * from sort_box sb where sb.client_id = oi.client_id order by sb.id limit 1) sb
        join product p on p.client_id = oi.client_id and p.sku = oi.sku
       where oi.qty > oi.confirmed_qty + oi.pending_qty order by oi.id limit 5000`);
    const [ev] = (await c.query(`select data from outbox_event where type = 'sort-box-item.created' limit 1`)).rows;
    const [ac] = (await c.query(`select result from applied_command where name = 'item.scan' limit 1`)).rows;
    const [session] = (await c.query(`select id, user_id from sorter_session order by id desc limit 1`)).rows;
    if (!ev || !ac || !session || lines.length === 0) throw new Error(`${SOURCE} holds no bench day (run npm run bench first)`);
    const ids = (await c.query<{ id: number }>(`select nextval('sort_box_item_id_seq')::int as id from generate_series(1, $1)`, [PAIRS + WARMUP])).rows;
    const run = (statement: typeof applyScan.statement, params: object) => c.query({ name: statement.name, text: statement.text, values: statement.values(params) });

    let li = 0;
    let wal0 = '0/0';
    let cpu0 = 0;
    let t0 = 0;
    let done = 0;
    for (let k = 0; k < PAIRS + WARMUP && li < lines.length; k++) {
      if (k === WARMUP) {
        await c.query('checkpoint');
        wal0 = (await c.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
        cpu0 = cpuMsOf(pid);
        t0 = Date.now();
      }
      const l = lines[li];
      const [{ version }] = (await c.query<{ version: string }>('select version from wall where id = $1', [l.wall_id])).rows;
      const v = Number(version);
      const now = new Date();
      const item = {
        id: ids[k]!.id, sortBoxId: l.slot_id, crc: l.crc, orderId: l.order_id, orderItemId: l.line_id, productId: l.product_id, sku: l.sku,
        barcode: '830000000002', barcodeInputMethod: 'Scanned', userId: session.user_id, sessionId: session.id, color: 'Magenta', units: 1,
        confirmedUnits: 0, status: 'PendingConfirmation', createdAt: now.toISOString(), confirmedAt: null, cancelledAt: null, requiresSerial: false, serial: null,
      };
      const base = {
        clientId: l.client_id, wallId: l.wall_id, wall: null, slotsVacated: '[]', slotsOccupied: '[]', slotsInserted: '[]', slotsDeleted: [],
        sessionsUpdated: '[]', sessionsInserted: '[]', now, itemIdRefill: 0, sessionIdRefill: 0,
      };
      const events = (type: string) => JSON.stringify([{ eventId: newId(), clientId: l.client_id, wallId: l.wall_id, type, occurredAt: now.toISOString(), data: ev.data }]);
      const line = { id: l.line_id, qty: l.qty, confirmedQty: l.confirmed_qty, pendingQty: l.pending_qty };
      const scanRecord = appliedRecord({ commandId: newId(), name: 'item.scan', partition: 0, jobId: k, appliedAt: now, key: randomUUID(), requestHash: 'x'.repeat(43) }, JSON.stringify(ac.result));
      const confirmRecord = appliedRecord({ commandId: newId(), name: 'item.confirm', partition: 0, jobId: k, appliedAt: now }, JSON.stringify(ac.result));
      if (MODE === 'merged') {
        await run(applyGroupScan.statement, {
          ...base, expectedVersion: v, nextVersion: v + 2,
          lines: JSON.stringify([{ ...line, newConfirmedQty: line.confirmedQty + 1, newPendingQty: line.pendingQty }]), lineCount: 1,
          itemsUpdated: '[]', itemsInserted: JSON.stringify([{ ...item, confirmedUnits: 1, status: 'Confirmed', confirmedAt: now.toISOString() }]),
          events: JSON.stringify([...JSON.parse(events('sort-box-item.created')), ...JSON.parse(events('sort-box-item.confirmed'))]),
          records: `[${scanRecord},${confirmRecord}]`,
          keyed: true,
        });
        l.confirmed_qty += 1;
        if (l.confirmed_qty + l.pending_qty >= l.qty) li++;
        if (k >= WARMUP) done++;
        continue;
      }
      if (MODE === 'group') {
        await c.query(`begin; set local idle_in_transaction_session_timeout = '15s'`);
        await c.query({ name: lockGroupLines.statement.name, text: lockGroupLines.statement.text, values: lockGroupLines.statement.values({ lineIds: [l.line_id] }) });
      }
      await run(applyScan.statement, {
        ...base, expectedVersion: v, nextVersion: v + 1,
        lines: JSON.stringify([{ ...line, newConfirmedQty: line.confirmedQty, newPendingQty: line.pendingQty + 1 }]), lineCount: 1,
        itemsUpdated: '[]', itemsInserted: JSON.stringify([item]), events: events('sort-box-item.created'),
        commandId: newId(), command: 'item.scan', partition: 0, jobId: k, result: JSON.stringify(ac.result), idempotency: JSON.stringify({ key: randomUUID(), requestHash: 'x'.repeat(43) }),
        records: '[]',
        keyed: true,
      });
      await run(applyConfirm.statement, {
        ...base, expectedVersion: v + 1, nextVersion: v + 2,
        lines: JSON.stringify([{ ...line, pendingQty: line.pendingQty + 1, newConfirmedQty: line.confirmedQty + 1, newPendingQty: line.pendingQty }]), lineCount: 1,
        itemsUpdated: JSON.stringify([{ ...item, confirmedUnits: 1, status: 'Confirmed', confirmedAt: now.toISOString() }]), itemsInserted: '[]',
        events: events('sort-box-item.confirmed'),
        commandId: newId(), command: 'item.confirm', partition: 0, jobId: k, result: JSON.stringify(ac.result), idempotency: null,
        records: '[]',
        keyed: false,
      });
      if (MODE === 'group') await c.query('commit');
      l.confirmed_qty += 1;
      if (l.confirmed_qty + l.pending_qty >= l.qty) li++;
      if (k >= WARMUP) done++;
    }
    const cpu = cpuMsOf(pid) - cpu0;
    const [{ wal }] = (await c.query<{ wal: string }>('select pg_current_wal_lsn() - $1::pg_lsn as wal', [wal0])).rows;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    process.stdout.write(
      `${SOURCE} (${MODE}, ${KEYS} ids, ${HISTORY} rows of history): ${done} scan+confirm writes, backend CPU ${(cpu / done).toFixed(3)} ms per pair, ` +
        `${(Number(wal) / done / 1024).toFixed(1)} kB of WAL per pair, ${((Date.now() - t0) / done).toFixed(2)} ms per pair elapsed, load ${load}\n`,
    );
  } finally {
    await c.end().catch(() => undefined);
    await admin.query(`drop database if exists "${copy}"`);
    await admin.end();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
