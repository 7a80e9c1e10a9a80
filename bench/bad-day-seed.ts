import { Client as PgClient } from 'pg';
import { initOrm } from '../shared/db/orm';
import { Employee } from '../shared/db/entities';
import { hashSecret } from '../shared/auth/password';
import { seededRandom } from '../shared/domain/prng';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { addProducts, addSlots, addWall, addWarehouse } from '../fixtures/floor-data';
import type { HttpClient } from './http-client';
import { REALISTIC_PASSWORD, type RealisticSeed, type RealisticWall } from './realistic-seed';

/*
 * The bad day's floor (docs/benchmarks.md, "The bad-day scenario"): a client of its own with 10 walls of
 * 24 slots, each wall in a warehouse of its own, 6 sorters and a shipper per wall and a Manager for the
 * hubs; a handful of SKUs shared by every warehouse. The backlog (orders of two lines of 5 units) is not
 * seeded: it is uploaded through the admin loader (uploadBacklog) once the service runs, and scanned at once.
 * Beside them, the deep and the cold wall (DEEP_SLOTS).
 */

export const BAD_DAY_SLOTS = 24;
const UNITS_PER_LINE = 5;
/**
 * The deep and the cold wall: 40 slots, 40 orders (at least) of ONE SKU of their own, 100 units each, so
 * every scan after an order's first goes to an order already in a slot and an order line gathers up to
 * 100 confirmed units (what a floor measured from outside does and the 24-slot walls above do not).
 * Orders beyond the 40 wait for a slot their shipper empties.
 */
export const DEEP_SLOTS = 40;
const DEEP_ORDERS = 40;
export const DEEP_UNITS = 100;
/** Sorters of the cold wall: its first commands come from six at once. */
export const COLD_SORTERS = 6;

export interface BadDaySeed extends RealisticSeed {
  managerEmail: string;
  /** Warehouse of each wall, by wall index. */
  warehouseIds: number[];
  /** The UPCs of the shared SKUs. */
  upcs: string[];
  /** The orders to upload (PUT /admin/orders), per wall in id order. */
  backlog: unknown[][];
  /**
   * The two walls of 40 slots and one SKU (after the bad day's walls in `walls`, with a shipper each in
   * `shippers`; their sorters are not in `sorters`): `deep` for one sorter, `cold` untouched until its step.
   */
  deep: { wallIndex: number; sorters: string[] };
  cold: { wallIndex: number; sorters: string[] };
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/**
 * Seeds everything but the orders, straight into PostgreSQL, without ANALYZE (the tables of a fresh
 * database have no statistics). Sign-ins are hashed cheaply: this scenario has no sign-in burst.
 */
export async function seedBadDay(databaseUrl: string, opts: { walls: number; sortersPerWall: number; ordersPerWall: number; idleWallOrders?: number; deepOrders?: number; skus: number }): Promise<BadDaySeed> {
  const orm = await initOrm(databaseUrl, 2);
  const rand = seededRandom(20);
  try {
    const em = orm.em.fork();
    const adminEmail = 'admin@bad-day.example.com';
    const { clientId } = await createClient(em.fork(), { name: 'Bad Day Co', team: 'bad-day', adminEmail, adminPassword: REALISTIC_PASSWORD, hashRounds: 4 });
    const products = Array.from({ length: opts.skus }, (_, i) => ({ sku: `DAY-SKU-${pad(i + 1, 2)}`, upc: `83${pad(i + 1, 10)}` }));
    await addProducts(em.fork(), clientId, products);
    const walls: RealisticWall[] = [];
    const warehouseIds: number[] = [];
    const backlog: unknown[][] = [];
    let units = 0;
    for (let w = 1; w <= opts.walls; w++) {
      const e = em.fork();
      const wh = await addWarehouse(e, clientId, { id: 200 + w, name: `Bad Day DC ${pad(w, 2)}` });
      const wall = await addWall(e, clientId, { name: `Bad Day wall ${pad(w, 2)}`, warehouseId: wh.id, maxSorters: opts.sortersPerWall });
      await addSlots(e, clientId, wall.id, BAD_DAY_SLOTS);
      const orders: unknown[] = [];
      const tote: string[] = [];
      const orderUnits = new Map<number, number>();
      // Wall 0 (the first) carries the idle steps before the others' steps: its own number of orders.
      const orderCount = w === 1 ? Math.max(opts.ordersPerWall, opts.idleWallOrders ?? 0) : opts.ordersPerWall;
      for (let k = 1; k <= orderCount; k++) {
        const id = (200 + w) * 100_000 + k;
        const a = Math.floor(rand() * opts.skus);
        const b = (a + 1 + Math.floor(rand() * (opts.skus - 1))) % opts.skus;
        orders.push({
          id,
          warehouseId: wh.id,
          orderDate: '2026-11-25T06:00:00Z',
          shipTo: { name: `Customer ${id}`, street1: `${k} Main St`, city: 'Omaha', postalCode: '68102', country: 'US' },
          items: [products[a]!, products[b]!].map((p) => ({ sku: p.sku, qty: UNITS_PER_LINE })),
        });
        for (const p of [products[a]!, products[b]!]) for (let u = 0; u < UNITS_PER_LINE; u++) tote.push(p.upc);
        orderUnits.set(id, 2 * UNITS_PER_LINE);
        units += 2 * UNITS_PER_LINE;
      }
      walls.push({ id: wall.id, tote, cursor: 0, putBack: [], orderUnits });
      warehouseIds.push(wh.id);
      backlog.push(orders);
    }
    const extra: { wallIndex: number; sorters: string[] }[] = [];
    for (const [n, kind] of [[opts.walls + 1, 'deep'], [opts.walls + 2, 'cold']] as const) {
      const e = em.fork();
      const sku = { sku: `DAY-${kind.toUpperCase()}-SKU`, upc: `84${pad(n, 10)}` };
      await addProducts(e, clientId, [sku]);
      const wh = await addWarehouse(e, clientId, { id: 200 + n, name: `Bad Day ${kind} DC` });
      const wall = await addWall(e, clientId, { name: `Bad Day ${kind} wall`, warehouseId: wh.id, maxSorters: COLD_SORTERS });
      await addSlots(e, clientId, wall.id, DEEP_SLOTS);
      const orders: unknown[] = [];
      const orderUnits = new Map<number, number>();
      const deepOrders = Math.max(DEEP_ORDERS, opts.deepOrders ?? 0);
      for (let k = 1; k <= deepOrders; k++) {
        const id = (200 + n) * 100_000 + k;
        orders.push({
          id,
          warehouseId: wh.id,
          orderDate: '2026-11-25T06:00:00Z',
          shipTo: { name: `Customer ${id}`, street1: `${k} Main St`, city: 'Omaha', postalCode: '68102', country: 'US' },
          items: [{ sku: sku.sku, qty: DEEP_UNITS }],
        });
        orderUnits.set(id, DEEP_UNITS);
        units += DEEP_UNITS;
      }
      walls.push({ id: wall.id, tote: Array.from({ length: deepOrders * DEEP_UNITS }, () => sku.upc), cursor: 0, putBack: [], orderUnits });
      warehouseIds.push(wh.id);
      backlog.push(orders);
      extra.push({ wallIndex: walls.length - 1, sorters: Array.from({ length: kind === 'deep' ? 1 : COLD_SORTERS }, (_, i) => `sorter-${kind}-${i + 1}@bad-day.example.com`) });
    }
    const passwordHash = await hashSecret(REALISTIC_PASSWORD, 4);
    const e = em.fork();
    const sorters: BadDaySeed['sorters'] = [];
    const shippers: BadDaySeed['shippers'] = [];
    const person = (email: string, roles: ('Sorter' | 'Manager')[], first: string) =>
      e.create(Employee, { clientId, email, firstName: first, lastName: 'Bad Day', roles, passwordHash, isActive: true, createdAt: new Date() });
    for (let w = 0; w < opts.walls; w++) {
      for (let k = 1; k <= opts.sortersPerWall; k++) {
        const email = `sorter-${pad(w + 1, 2)}-${k}@bad-day.example.com`;
        person(email, ['Sorter'], `Sorter ${w + 1}.${k}`);
        sorters.push({ email, wallIndex: w });
      }
      const email = `shipper-${pad(w + 1, 2)}@bad-day.example.com`;
      person(email, ['Sorter'], `Shipper ${w + 1}`);
      shippers.push({ email, wallIndex: w });
    }
    for (const x of extra) {
      for (const email of x.sorters) person(email, ['Sorter'], email.split('@')[0]!);
      const email = `shipper-${pad(x.wallIndex + 1, 2)}@bad-day.example.com`;
      person(email, ['Sorter'], `Shipper ${x.wallIndex + 1}`);
      shippers.push({ email, wallIndex: x.wallIndex });
    }
    const managerEmail = 'hub@bad-day.example.com';
    person(managerEmail, ['Manager'], 'Hub');
    await e.flush();
    return { clientId, adminEmail, managerEmail, walls, warehouseIds, upcs: products.map((p) => p.upc), sorters, shippers, units, backlog, deep: extra[0]!, cold: extra[1]! };
  } finally {
    await orm.close();
  }
}

/**
 * A floor's history in the tables every command writes to, as a floor that has run for a while holds
 * it: `rows` applied_command records over the last day (COMMAND_RECORD_RETENTION_HOURS keeps 24 h) and
 * `rows` relayed outbox events (confirms) over the last six days (OUTBOX_RETENTION_DAYS keeps 7), up to
 * a minute ago, keyed as the service keys them (time-ordered UUIDs: shared/db/time-ordered-uuid.ts),
 * vacuumed and analyzed as autovacuum would have them by then. The relay's horizon and every
 * consumer's position are set past them, so no consumer takes them as new. Without it every index the
 * commands write to fits in a few pages, which no floor's does.
 */
export async function addHistory(databaseUrl: string, seed: BadDaySeed, rows: number): Promise<void> {
  if (rows <= 0) return;
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  // A version 7 UUID of the row's millisecond, its other bits from md5 (history only: not the service's generator).
  const v7 = (at: string) => `(lpad(to_hex((extract(epoch from ${at}) * 1000)::bigint), 12, '0') || '7' || substr(m, 14, 3) || '8' || substr(m, 18, 15))::uuid`;
  try {
    const wallId = seed.walls[0]!.id;
    await pg.query(`
      insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at)
      select ${v7('t')}, $1::int, $2::int, case when g % 2 = 0 then 'item.scan' else 'item.confirm' end, 0, g, '{"id": 1, "status": "Confirmed"}'::jsonb, t
        from generate_series(1, $3::int) g,
             lateral (select now() - interval '1 minute' - interval '1 day' + (g * interval '1 day') / ($3::int + 1) as t, md5(g::text) as m) x`, [seed.clientId, wallId, rows]);
    await pg.query(`
      insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
      select ${v7('t')}, $1::int, $2::int, 'sort-box-item.confirmed', t,
             jsonb_build_object(
               'item', jsonb_build_object('id', g, 'crc', 'A0000001', 'sku', 'SKU-1', 'color', 'Cyan', 'units', 1, 'serial', null, 'status', 'Confirmed',
                                          'userId', 1, 'wallId', $2::int, 'barcode', '830000000002', 'orderId', g / 10, 'colorHex', '#00ACC1', 'position', 1,
                                          'createdAt', t - interval '2 seconds', 'cancelledAt', null, 'confirmedAt', t, 'requiredUnits', 5,
                                          'sorterBarcode', 'A-A0000001', 'confirmedUnits', 1, 'remainingUnits', 4, 'requiresSerial', false,
                                          'barcodeInputMethod', 'Scanned'),
               'sortBox', jsonb_build_object('id', 1, 'crc', 'A0000001', 'status', 'Sorting', 'wallId', $2::int, 'orderId', g / 10, 'position', 1,
                                             'serialNumber', 'HISTORY-1', 'sorterBarcode', 'A-A0000001', 'shipperBarcode', 'B-A0000001'))
        from generate_series(1, $3::int) g,
             lateral (select now() - interval '1 minute' - interval '6 days' + (g * interval '6 days') / ($3::int + 1) as t, md5(g::text) as m) x`, [seed.clientId, wallId, rows]);
    await pg.query(`
      insert into outbox_horizon (only_row, through) values (true, (select max(id) from outbox_event))
      on conflict (only_row) do update set through = excluded.through, moved_at = now()`);
    // The consumers the migrations register (at 0 on a new database) have taken the history too.
    await pg.query('update outbox_consumer set position = (select through from outbox_horizon)');
    // Vacuumed and analyzed as autovacuum would have them by then: statistics, and the BRIN indexes on
    // their times summarized (an unsummarized range matches every condition, so a retention batch would
    // read the whole history).
    await pg.query('vacuum analyze applied_command, outbox_event');
  } finally {
    await pg.end();
  }
}

/**
 * `fresh`: autovacuum off on every table, so no statistics appear while the bench runs (as right after a
 * morning upload, before autovacuum's first pass); `analyzed`: ANALYZE right after the upload.
 */
export async function holdStatistics(databaseUrl: string): Promise<void> {
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ name: string }>(`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r'`);
    for (const { name } of rows) await pg.query(`alter table "${name.replace(/"/g, '""')}" set (autovacuum_enabled = false)`);
  } finally {
    await pg.end();
  }
}

/** The whole backlog through PUT /admin/orders, in calls of up to `perCall` orders; resolves with the time it took. */
export async function uploadBacklog(http: HttpClient, adminAuth: string, seed: BadDaySeed, perCall = 2000): Promise<{ ms: number; orders: number; calls: number }> {
  const orders = seed.backlog.flat();
  const t0 = performance.now();
  let calls = 0;
  for (let i = 0; i < orders.length; i += perCall) {
    const res = await http.request('PUT', '/api/v1/admin/orders', { auth: adminAuth, body: orders.slice(i, i + perCall), timeoutMs: 120_000 });
    calls++;
    if (res.status !== 200) throw new Error(`uploading orders ${i}–${i + perCall} failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  }
  return { ms: Math.round(performance.now() - t0), orders: orders.length, calls };
}
