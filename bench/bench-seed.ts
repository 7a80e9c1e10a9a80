import { Client as PgClient } from 'pg';
import { ensureDatabase, initOrm, migrate } from '../shared/db/orm';
import { Employee } from '../shared/db/entities';
import { hashSecret } from '../shared/auth/password';
import { createRedis } from '../shared/redis/redis';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { addOrders, addProducts, addSlots, addWall, addWarehouse, putOrderInSlot } from '../fixtures/floor-data';
import { BENCH_DATABASE, type BenchSettings } from './bench-settings';
import type { FloorFixture } from './lib/pg-floor';

export const SORTER_PASSWORD = 'bench-sorter-password';

export interface SeededWall {
  id: number;
  warehouseId: number;
  /** The UPCs a sorter of this wall scans, one per order of the wall. */
  barcodes: string[];
}

export interface SeededSorter {
  email: string;
  wallIndex: number;
}

export interface Seeded {
  clientId: number;
  walls: SeededWall[];
  sorters: SeededSorter[];
  floor: FloorFixture;
}

/** Drops and recreates `sorting_bench` (never another database) and migrates it. */
export async function resetDatabase(s: BenchSettings): Promise<void> {
  if (new URL(s.databaseUrl).pathname !== `/${BENCH_DATABASE}`) throw new Error(`refusing to reset ${s.databaseUrl}: not the bench database`);
  await recreateDatabase(s.adminDatabaseUrl, s.databaseUrl);
}

/** Drops the database `url` names (through `adminUrl`), creates it again and migrates it. */
export async function recreateDatabase(adminUrl: string, url: string): Promise<void> {
  const database = new URL(url).pathname.slice(1);
  const admin = new PgClient({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${database}" with (force)`);
  } finally {
    await admin.end();
  }
  await ensureDatabase(url);
  const orm = await initOrm(url, 2);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
}

/** Deletes every key under the bench prefix (queues, rate limits); other prefixes are untouched. */
export async function resetRedis(s: BenchSettings): Promise<number> {
  const redis = createRedis(s.redisUrl);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${s.queuePrefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * One client; per wall a warehouse of its own, 60 slots, 6 sorters and 20 orders of one line each
 * (a distinct SKU, qty 10000), so walls never compete for orders and scans never run out: after the
 * first scans every order sits in a slot of its wall and later scans of its SKU go to that slot.
 */
export async function seed(s: BenchSettings): Promise<Seeded> {
  const orm = await initOrm(s.databaseUrl, 2);
  try {
    const em = orm.em.fork();
    const client = await createClient(em.fork(), {
      name: 'Bench Co',
      team: 'bench',
      adminEmail: 'admin@bench.example.com',
      adminPassword: 'bench-admin-password',
      hashRounds: 4,
    });
    const clientId = client.clientId;
    const products = Array.from({ length: s.ordersPerWall }, (_, i) => ({ sku: `BENCH-SKU-${pad(i + 1, 2)}`, upc: `8000000${pad(i + 1, 5)}` }));
    await addProducts(em.fork(), clientId, [...products, { sku: 'FLOOR-SKU', upc: '899999999999' }]);

    const walls: SeededWall[] = [];
    for (let w = 1; w <= s.walls; w++) {
      const e = em.fork();
      const wh = await addWarehouse(e, clientId, { id: w, name: `Bench DC ${pad(w, 2)}` });
      await addOrders(
        e,
        clientId,
        products.map((p, k) => ({ id: w * 1000 + k + 1, warehouseId: wh.id, items: [{ sku: p.sku, qty: s.qtyPerLine }] })),
      );
      const wall = await addWall(e, clientId, { name: `Bench wall ${pad(w, 2)}`, warehouseId: wh.id, maxSorters: s.sortersPerWall });
      await addSlots(e, clientId, wall.id, s.slotsPerWall);
      walls.push({ id: wall.id, warehouseId: wh.id, barcodes: products.map((p) => p.upc) });
    }

    const passwordHash = await hashSecret(SORTER_PASSWORD, 4);
    const sorters: SeededSorter[] = [];
    const e = em.fork();
    for (let w = 0; w < s.walls; w++) {
      for (let k = 1; k <= s.sortersPerWall; k++) {
        const email = `sorter-${pad(w + 1, 2)}-${k}@bench.example.com`;
        e.create(Employee, { clientId, email, firstName: `Sorter ${w + 1}.${k}`, lastName: 'Bench', roles: ['Sorter'], passwordHash, isActive: true, createdAt: new Date() });
        sorters.push({ email, wallIndex: w });
      }
    }
    await e.flush();

    const floor = await seedFloorWall(orm.em.fork(), clientId, s.qtyPerLine * 1000);
    // Fresh tables have no statistics; without them the planner picks poor plans a live database would not.
    await orm.em.fork().execute('analyze');
    return { clientId, walls, sorters, floor };
  } finally {
    await orm.close();
  }
}

async function seedFloorWall(em: Parameters<typeof addWall>[0], clientId: number, qty: number): Promise<FloorFixture> {
  const wh = await addWarehouse(em, clientId, { id: 999, name: 'Floor probe DC' });
  await addOrders(em, clientId, [{ id: 999_001, warehouseId: wh.id, items: [{ sku: 'FLOOR-SKU', qty }] }]);
  const wall = await addWall(em, clientId, { name: 'Floor probe wall', warehouseId: wh.id });
  const [slot] = await addSlots(em, clientId, wall.id, 1);
  await putOrderInSlot(em, slot, 999_001);
  const user = em.create(Employee, {
    clientId, email: 'floor-probe@bench.example.com', firstName: 'Floor', lastName: 'Probe', roles: ['Sorter'], passwordHash: 'x', isActive: true, createdAt: new Date(),
  });
  await em.flush();
  const [session] = await em.execute<{ id: number }[]>(
    `insert into sorter_session (token, client_id, wall_id, user_id, color, status, expires_at)
     values ('floor-probe-session', ?, ?, ?, 'Red', 'Connected', now() + interval '1 day') returning id`,
    [clientId, wall.id, user.id],
  );
  return { clientId, wallId: wall.id, barcode: '899999999999', sessionId: session.id, sessionToken: 'floor-probe-session', userId: user.id };
}
