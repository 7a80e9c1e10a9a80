import { initOrm } from '../shared/db/orm';
import { Employee } from '../shared/db/entities';
import { DEFAULT_HASH_COST, hashSecret } from '../shared/auth/password';
import { createClient } from '../shared/tenancy/create-client.use-case';
import { addOrders, addProducts, addSlots, addWall, addWarehouse, type OrderInput } from '../fixtures/floor-data';
import type { BenchSettings } from './bench-settings';
import { seededRandom } from '../shared/domain/prng';

/*
 * The realistic scenario's floor (docs/benchmarks.md): a client of its own with 10 walls × 24 slots, 6 sorters and a
 * shipper per wall, and per wall a backlog of orders of 1–3 units over 60 SKUs. Passwords are hashed at
 * the production cost, so the burst of sign-ins costs what it costs in production.
 */

export const REALISTIC_PASSWORD = 'realistic-sorter-password';
export const REALISTIC_SLOTS = 24;
const SKUS = 60;

export interface RealisticWall {
  id: number;
  /** The units as they arrive from batch picking: each order's units, orders in id order (UPCs). */
  tote: string[];
  cursor: number;
  /** Units whose scan was refused (nothing changed): offered again before the tote's next. */
  putBack: string[];
  /** Units per order, to know when an order is complete. */
  orderUnits: Map<number, number>;
}

export interface RealisticSeed {
  clientId: number;
  adminEmail: string;
  walls: RealisticWall[];
  sorters: { email: string; wallIndex: number }[];
  shippers: { email: string; wallIndex: number }[];
  units: number;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

export async function seedRealistic(s: BenchSettings, sortersPerWall: number, walls = 10): Promise<RealisticSeed> {
  const orm = await initOrm(s.databaseUrl, 2);
  const rand = seededRandom(8);
  try {
    const em = orm.em.fork();
    const adminEmail = 'admin@realistic.example.com';
    const { clientId } = await createClient(em.fork(), { name: 'Realistic Co', team: 'realistic', adminEmail, adminPassword: REALISTIC_PASSWORD, hashRounds: 4 });
    const products = Array.from({ length: SKUS }, (_, i) => ({ sku: `REAL-SKU-${pad(i + 1, 3)}`, upc: `81${pad(i + 1, 10)}` }));
    await addProducts(em.fork(), clientId, products);
    const upcOf = new Map(products.map((p) => [p.sku, p.upc]));
    const out: RealisticWall[] = [];
    let units = 0;
    for (let w = 1; w <= walls; w++) {
      const e = em.fork();
      const wh = await addWarehouse(e, clientId, { id: 100 + w, name: `Realistic DC ${pad(w, 2)}` });
      const orders: OrderInput[] = [];
      const tote: string[] = [];
      const orderUnits = new Map<number, number>();
      for (let k = 1; k <= s.realisticOrdersPerWall; k++) {
        const id = (100 + w) * 100_000 + k;
        const n = 1 + Math.floor(rand() * 3);
        // 1–3 units over 1–n distinct SKUs.
        const lines = new Map<string, number>();
        for (let u = 0; u < n; u++) {
          const sku = lines.size && rand() < 0.4 ? [...lines.keys()][0] : products[Math.floor(rand() * SKUS)].sku;
          lines.set(sku, (lines.get(sku) ?? 0) + 1);
        }
        orders.push({ id, warehouseId: wh.id, items: [...lines].map(([sku, qty]) => ({ sku, qty })) });
        for (const [sku, qty] of lines) for (let q = 0; q < qty; q++) tote.push(upcOf.get(sku)!);
        orderUnits.set(id, n);
        units += n;
      }
      // Batches of 500: one flush per batch keeps the seed quick.
      for (let i = 0; i < orders.length; i += 500) await addOrders(e.fork(), clientId, orders.slice(i, i + 500));
      const wall = await addWall(e, clientId, { name: `Realistic wall ${pad(w, 2)}`, warehouseId: wh.id, maxSorters: sortersPerWall });
      await addSlots(e, clientId, wall.id, REALISTIC_SLOTS);
      out.push({ id: wall.id, tote, cursor: 0, putBack: [], orderUnits });
    }
    const passwordHash = await hashSecret(REALISTIC_PASSWORD, DEFAULT_HASH_COST);
    const e = em.fork();
    const sorters: RealisticSeed['sorters'] = [];
    const shippers: RealisticSeed['shippers'] = [];
    for (let w = 0; w < walls; w++) {
      for (let k = 1; k <= sortersPerWall; k++) {
        const email = `sorter-${pad(w + 1, 2)}-${k}@realistic.example.com`;
        e.create(Employee, { clientId, email, firstName: `Sorter ${w + 1}.${k}`, lastName: 'Realistic', roles: ['Sorter'], passwordHash, isActive: true, createdAt: new Date() });
        sorters.push({ email, wallIndex: w });
      }
      const email = `shipper-${pad(w + 1, 2)}@realistic.example.com`;
      e.create(Employee, { clientId, email, firstName: `Shipper ${w + 1}`, lastName: 'Realistic', roles: ['Sorter'], passwordHash, isActive: true, createdAt: new Date() });
      shippers.push({ email, wallIndex: w });
    }
    await e.flush();
    await orm.em.fork().execute('analyze');
    return { clientId, adminEmail, walls: out, sorters, shippers, units };
  } finally {
    await orm.close();
  }
}
