import { SimClient, clientIdOf, expectOk } from './sim-client';

/*
 * The simulator's demo data, created through the admin API (idempotent: a second run reuses it):
 * a warehouse of its own, products, walls of 24 slots (4 × 6 segments), sorter employees, and
 * batches of orders whenever the units to sort run low.
 */

export const SIM_WAREHOUSE_ID = 900_001;
export const SIM_SORTER_PASSWORD = 'simulator-sorter-1';
const SLOTS_PER_WALL = 24;
const PRODUCTS = [
  'TEE-BLK-M', 'TEE-WHT-L', 'MUG-12OZ', 'BOTTLE-750', 'CABLE-USBC', 'CHARGER-20W', 'SOCKS-3PK', 'CAP-NAVY',
  'NOTEBOOK-A5', 'PENS-10', 'CANDLE-VAN', 'TOWEL-GRY', 'HOODIE-GRN-S', 'BAG-TOTE', 'LAMP-DESK', 'PLANT-POT',
].map((s) => `SIM-${s}`);
const SHIP_TO = { name: 'Simulated Customer', street1: '1 Simulation Way', city: 'Omaha', state: 'NE', postalCode: '68102', country: 'US' };

export interface SimWall {
  id: number;
  name: string;
}

export interface SimSorterAccount {
  email: string;
  wall: SimWall;
}

export async function setUpFloor(http: SimClient, admin: string, opts: { walls: number; sortersPerWall: number }): Promise<{ walls: SimWall[]; sorters: SimSorterAccount[] }> {
  expectOk(await http.call('PUT', '/api/v1/admin/warehouses', { auth: admin, body: [{ id: SIM_WAREHOUSE_ID, name: 'Simulator DC' }] }), 'loading the warehouse');
  expectOk(
    await http.call('PUT', '/api/v1/admin/products', { auth: admin, body: PRODUCTS.map((sku) => ({ sku, title: `Simulated ${sku.slice(4).toLowerCase()}` })) }),
    'loading the products',
  );
  const existing = expectOk(await http.call<{ id: number; name: string }[]>('GET', '/api/v1/walls', { auth: admin }), 'listing the walls');
  const walls: SimWall[] = [];
  for (let i = 1; i <= opts.walls; i++) {
    const name = `Simulator wall ${i}`;
    let wall = existing.find((w) => w.name.toLowerCase() === name.toLowerCase());
    if (!wall) {
      const body = { name, warehouseId: SIM_WAREHOUSE_ID, maxSorters: 6, segmentRows: 4, segmentColumns: 6, flowDirection: 'LeftToRight' };
      wall = expectOk(await http.call('POST', '/api/v1/walls', { auth: admin, body }), `creating ${name}`, [200, 201]);
    } else {
      expectOk(await http.call('PATCH', `/api/v1/walls/${wall.id}`, { auth: admin, body: { isActive: true, warehouseId: SIM_WAREHOUSE_ID } }), `activating ${name}`);
    }
    const serials = Array.from({ length: SLOTS_PER_WALL }, (_, n) => `sim-w${i}-s${String(n + 1).padStart(2, '0')}`);
    expectOk(await http.call('PUT', `/api/v1/walls/${wall!.id}/sort-boxes`, { auth: admin, body: { serialNumbers: serials } }), `attaching the slots of ${name}`);
    walls.push({ id: wall!.id, name });
  }
  // E-mails are unique across every company: the company id keeps two companies' simulators apart.
  const cid = clientIdOf(admin);
  const sorters: SimSorterAccount[] = [];
  for (const [w, wall] of walls.entries()) {
    for (let k = 1; k <= opts.sortersPerWall; k++) {
      const email = `sim-sorter-${w + 1}-${k}-c${cid}@simulator.local`;
      const res = await http.call('POST', '/api/v1/admin/employees', {
        auth: admin,
        body: { email, firstName: 'Sim', lastName: `Sorter ${w + 1}.${k}`, password: SIM_SORTER_PASSWORD, roles: ['Sorter'] },
      });
      expectOk(res, `creating sorter ${email}`, [200, 201, 409]);
      sorters.push({ email, wall });
    }
  }
  return { walls, sorters };
}

/** Order ids of this run: from the clock, so runs one after another do not reuse ids. */
export function firstOrderId(now = Date.now()): number {
  return 1_000_000_000 + (now % 1_000_000_000);
}

/** Loads `count` new orders of 1..3 lines, 1..2 units each; answers the units (one SKU per unit). */
export async function loadOrders(http: SimClient, admin: string, ids: { next: number }, count: number, random: () => number): Promise<string[]> {
  const units: string[] = [];
  const orders = Array.from({ length: count }, () => {
    const lines = 1 + Math.floor(random() * 3);
    const skus = [...PRODUCTS].sort(() => random() - 0.5).slice(0, lines);
    const items = skus.map((sku) => ({ sku, qty: random() < 0.8 ? 1 : 2 }));
    for (const line of items) for (let u = 0; u < line.qty; u++) units.push(line.sku);
    const r = random();
    const priority = r < 0.05 ? 'Critical' : r < 0.2 ? 'High' : r < 0.3 ? 'Low' : 'Normal';
    return { id: ids.next++, warehouseId: SIM_WAREHOUSE_ID, orderDate: new Date().toISOString(), priority, shipTo: SHIP_TO, items };
  });
  expectOk(await http.call('PUT', '/api/v1/admin/orders', { auth: admin, body: orders }), 'loading orders');
  return units;
}
