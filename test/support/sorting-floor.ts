import request from 'supertest';
import type { Role } from '../../shared/db/entities';
import { addOrders, addProducts, addSlots, addWall, addWarehouse } from './fixtures';
import { newTenant, signedInEmployee, uniqueSuffix, type Tenant, type TestApi } from './test-api';

export interface Floor {
  tenant: Tenant;
  warehouseId: number;
  wallId: number;
  slots: { id: number; crc: string; position: number }[];
  /** Bearer header values of sorters (and a manager), created on demand. */
  sorter(n: number): Promise<{ auth: string; userId: number }>;
  manager(): Promise<{ auth: string; userId: number }>;
}

/** A tenant with a warehouse, a wall of `slots` slots, products and orders: a sorting floor for tests. */
export async function buildFloor(
  api: TestApi,
  opts: {
    slots?: number;
    maxSorters?: number;
    products?: { sku: string; upc?: string; aliases?: string[]; shadowSkus?: string[]; requiresSerial?: boolean }[];
    orders?: { id: number; items: { sku: string; qty: number }[]; priority?: 'Low' | 'Normal' | 'High' | 'Critical'; orderDate?: Date; isDropShip?: boolean }[];
  } = {},
): Promise<Floor> {
  const tenant = await newTenant(api, 'Floor');
  const em = api.runtime.orm.em.fork();
  const wh = await addWarehouse(em, tenant.clientId, { id: 1, name: 'Jackson St DC' });
  await addProducts(em, tenant.clientId, opts.products ?? [{ sku: 'SKU-A', upc: '012345678905' }, { sku: 'SKU-B' }]);
  if (opts.orders?.length) await addOrders(em, tenant.clientId, opts.orders.map((o) => ({ ...o, warehouseId: wh.id })));
  const wall = await addWall(em, tenant.clientId, { name: `Wall ${uniqueSuffix()}`, warehouseId: wh.id, maxSorters: opts.maxSorters ?? 6 });
  const slots = await addSlots(em, tenant.clientId, wall.id, opts.slots ?? 4);
  const users = new Map<string, { auth: string; userId: number }>();
  const make = async (key: string, roles: Role[]) => {
    const existing = users.get(key);
    if (existing) return existing;
    const { id, auth } = await signedInEmployee(api, tenant, { roles, email: `${key}-${uniqueSuffix()}@example.com`, firstName: key, lastName: 'Tester' });
    const user = { auth, userId: id };
    users.set(key, user);
    return user;
  };
  return {
    tenant,
    warehouseId: wh.id,
    wallId: wall.id,
    slots: slots.map((s) => ({ id: s.id, crc: s.crc, position: s.position })),
    sorter: (n) => make(`sorter${n}`, ['Sorter']),
    manager: () => make('manager', ['Manager']),
  };
}

export async function connect(api: TestApi, floor: Floor, auth: string, body: object = {}): Promise<request.Response> {
  return request(api.app).post(`/api/v1/walls/${floor.wallId}/sessions`).set('Authorization', auth).send(body);
}

export async function scan(api: TestApi, auth: string, sessionToken: string, barcode: string, headers: Record<string, string> = {}): Promise<request.Response> {
  return request(api.app).post('/api/v1/sort-box-items').set('Authorization', auth).set(headers).send({ sessionToken, barcode });
}
