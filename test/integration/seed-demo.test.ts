import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { verifySecret } from '../../shared/auth/password';
import { loadConfig } from '../../shared/config/config';
import { Client, ClientSettings, Employee, Order, OrderItem, Picklist, PicklistOrder, Product, PRODUCT_CODE_KINDS, ProductCode, SortBox, Wall, Warehouse } from '../../shared/db/entities';
import { initOrm, type Orm } from '../../shared/db/orm';
import { crc32Hex } from '../../shared/domain/crc';
import { createClient } from '../../shared/tenancy/create-client.use-case';
import { seedDemo } from '../../services/seed/seed-demo.use-case';
import { TEST_PG_BASE, dropDatabase, templateDbName, testRunId, withAdmin } from '../support/test-db';

// The seed acts only on a database without any client, and the jest worker's database is shared by
// the other test files: each case gets its own copy of the migrated template instead.
const created: string[] = [];
const orms: Orm[] = [];

async function freshOrm(): Promise<Orm> {
  const name = `sorting_test_${testRunId()}_seed_${randomUUID().slice(0, 8)}`;
  await withAdmin((pg) => pg.query(`create database "${name}" template "${templateDbName()}"`));
  created.push(name);
  const orm = await initOrm(`${TEST_PG_BASE}/${name}`, 4);
  orms.push(orm);
  return orm;
}

afterAll(async () => {
  for (const orm of orms) await orm.close();
  await withAdmin(async (pg) => {
    for (const name of created) await dropDatabase(pg, name);
  });
});

const config = loadConfig();
const log = pino({ level: 'silent' });

async function counts(orm: Orm) {
  const em = orm.em.fork();
  return {
    clients: await em.count(Client, {}),
    settings: await em.count(ClientSettings, {}),
    employees: await em.count(Employee, {}),
    warehouses: await em.count(Warehouse, {}),
    products: await em.count(Product, {}),
    productCodes: await em.count(ProductCode, {}),
    orders: await em.count(Order, {}),
    orderItems: await em.count(OrderItem, {}),
    picklists: await em.count(Picklist, {}),
    picklistOrders: await em.count(PicklistOrder, {}),
    walls: await em.count(Wall, {}),
    slots: await em.count(SortBox, {}),
  };
}

describe('seedDemo', () => {
  it('prints barcodes to scan: products an open order needs (by UPC, alias, SKU) and slot 1\'s A- and B- codes', async () => {
    const orm = await freshOrm();
    const signIn = (await seedDemo(orm.em.fork(), config, log))!;
    const { products, slot } = signIn.barcodes;
    expect(products.map((p) => p.kind)).toEqual(['UPC', 'alias', 'SKU']);
    const em = orm.em.fork();
    for (const p of products) {
      expect(signIn.banner).toContain(p.barcode);
      const code = await em.findOne(ProductCode, { code: p.barcode.toUpperCase() });
      const product = await em.findOneOrFail(Product, { id: code!.productId });
      expect(product.sku).toBe(p.sku);
      expect(await em.count(OrderItem, { sku: p.sku })).toBeGreaterThan(0);
    }
    const first = await em.findOneOrFail(SortBox, { position: 1 });
    expect(slot).toEqual({ position: 1, crc: first.crc, sorterBarcode: `A-${first.crc}`, shipperBarcode: `B-${first.crc}` });
    expect(signIn.banner).toContain(`A-${first.crc}`);
    expect(signIn.banner).toContain(`B-${first.crc}`);
  });

  it('holds the first sort of the walkthrough: a single-unit order that is the first choice for its product', async () => {
    const orm = await freshOrm();
    const signIn = (await seedDemo(orm.em.fork(), config, log))!;
    const { firstSort } = signIn;
    expect(firstSort).toEqual({ orderId: 1000, barcode: 'MUG12', sku: 'MUG-CERAMIC-12OZ', title: 'Ceramic Mug, 12 oz' });
    expect(signIn.banner).toContain('scan     MUG12 (alias of MUG-CERAMIC-12OZ): order 1000 needs just that unit; slot 1 lights');
    expect(signIn.banner).toContain(`confirm  ${signIn.barcodes.slot.sorterBarcode} (slot 1, front): order 1000 is complete`);
    const em = orm.em.fork();
    expect(await em.find(OrderItem, { orderId: 1000 })).toEqual([expect.objectContaining({ sku: 'MUG-CERAMIC-12OZ', qty: 1, confirmedQty: 0, pendingQty: 0 })]);
    const code = await em.findOneOrFail(ProductCode, { code: 'MUG12' });
    expect((await em.findOneOrFail(Product, { id: code.productId })).sku).toBe('MUG-CERAMIC-12OZ');
    // The first choice among the orders needing it: most urgent, then oldest (docs/api.md §7).
    const [choice] = await em.execute<{ id: number }[]>(
      `select o.id from orders o join order_item i on i.client_id = o.client_id and i.order_id = o.id
        where o.client_id = ? and i.sku = 'MUG-CERAMIC-12OZ' order by o.priority_rank desc, o.order_date asc, o.id asc limit 1`,
      [signIn.clientId],
    );
    expect(choice!.id).toBe(1000);
    // The other barcodes of the banner lead elsewhere.
    expect(signIn.barcodes.products.map((p) => p.sku)).not.toContain('MUG-CERAMIC-12OZ');
  });


  it('seeds the demo client on an empty database, once, even when two processes race', async () => {
    const orm = await freshOrm();
    const results = await Promise.all([seedDemo(orm.em.fork(), config, log), seedDemo(orm.em.fork(), config, log)]);
    const seeded = results.filter((r) => r !== null);
    expect(seeded).toHaveLength(1);
    const signIn = seeded[0]!;
    expect(signIn.team).toBe('demo');
    expect(signIn.banner).toContain('admin@demo.local');
    expect(signIn.accounts.map((a) => [a.role, a.email, a.password])).toEqual([
      ['Admin', 'admin@demo.local', 'demo-admin-1'],
      ['Manager', 'manager@demo.local', 'demo-manager-1'],
      ['Sorter', 'sorter1@demo.local', 'demo-sorter-1'],
      ['Sorter', 'sorter2@demo.local', 'demo-sorter-2'],
    ]);

    const before = await counts(orm);
    expect(before).toMatchObject({
      clients: 1,
      settings: 1,
      employees: 4,
      warehouses: 1,
      products: 12,
      orders: 41,
      picklists: 1,
      picklistOrders: 10,
      walls: 1,
      slots: 24,
    });
    expect(before.orderItems).toBeGreaterThanOrEqual(40);
    expect(before.orderItems).toBeLessThanOrEqual(160);

    const em = orm.em.fork();
    const client = await em.findOneOrFail(Client, { id: signIn.clientId });
    expect(client).toMatchObject({ team: 'demo', name: 'Demo Warehouse Co' });

    // Every account signs in with its printed password and has its role.
    const employees = await em.find(Employee, { clientId: client.id }, { orderBy: { id: 'asc' } });
    for (const account of signIn.accounts) {
      const e = employees.find((x) => x.email === account.email)!;
      expect(e.roles).toEqual([account.role]);
      expect(e.isActive).toBe(true);
      expect(await verifySecret(account.password, e.passwordHash)).toBe(true);
    }

    const warehouse = await em.findOneOrFail(Warehouse, { clientId: client.id, id: 1 });
    expect(warehouse.name).toBe('Jackson St DC');
    expect(typeof warehouse.latitude).toBe('number');
    expect(typeof warehouse.longitude).toBe('number');

    // Codes: each product's sku and upc, upper-cased, plus some aliases and shadow skus.
    const products = await em.find(Product, { clientId: client.id });
    const codes = await em.find(ProductCode, { clientId: client.id });
    for (const p of products) {
      expect(p.upc).toMatch(/^\d{12}$/);
      expect(p.sitePrice).toEqual(expect.any(Number));
      const own = codes.filter((c) => c.productId === p.id);
      expect(own).toContainEqual(expect.objectContaining({ code: p.sku.toUpperCase(), kind: PRODUCT_CODE_KINDS.sku }));
      expect(own).toContainEqual(expect.objectContaining({ code: p.upc, kind: PRODUCT_CODE_KINDS.upc }));
      expect(own).toHaveLength(2 + p.aliases.length + p.shadowSkus.length);
    }
    expect(codes.some((c) => c.kind === PRODUCT_CODE_KINDS.alias)).toBe(true);
    expect(codes.some((c) => c.kind === PRODUCT_CODE_KINDS.shadowSku)).toBe(true);
    expect(codes.every((c) => c.code === c.code.toUpperCase())).toBe(true);

    const orders = await em.find(Order, { clientId: client.id });
    expect(orders.every((o) => o.status === 'Unshipped' && o.warehouseId === 1)).toBe(true);
    expect(new Set(orders.map((o) => o.priority)).size).toBeGreaterThan(1);
    const monthAgo = Date.now() - 30 * 24 * 3600 * 1000;
    expect(orders.every((o) => o.orderDate.getTime() > monthAgo && o.orderDate.getTime() <= Date.now())).toBe(true);
    const items = await em.find(OrderItem, { clientId: client.id });
    const skus = new Set(products.map((p) => p.sku));
    for (const o of orders) {
      const lines = items.filter((i) => i.orderId === o.id);
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThanOrEqual(4);
    }
    expect(items.every((i) => skus.has(i.sku) && i.qty >= 1 && i.qty <= 3 && i.bins.length > 0)).toBe(true);

    const picklist = await em.findOneOrFail(Picklist, { clientId: client.id, id: signIn.picklistId });
    expect(picklist.status).toBe('Open');

    const wall = await em.findOneOrFail(Wall, { id: signIn.wallId, clientId: client.id });
    expect(wall).toMatchObject({
      name: 'Jackson St',
      warehouseId: 1,
      maxSorters: 6,
      workflow: 'FreeSort',
      segmentRows: 4,
      segmentColumns: 6,
      isActive: true,
    });
    const slots = await em.find(SortBox, { wallId: wall.id }, { orderBy: { position: 'asc' } });
    expect(slots.map((s) => s.position)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(slots[0]!.serialNumber).toBe('0x0A000001');
    expect(slots[23]!.serialNumber).toBe('0x0A000018');
    expect(slots.every((s) => s.crc === crc32Hex(s.serialNumber) && s.status === 'Empty' && s.orderId === null)).toBe(true);

    // A later start finds the client and changes nothing.
    expect(await seedDemo(orm.em.fork(), config, log)).toBeNull();
    expect(await counts(orm)).toEqual(before);
  });

  it('does nothing on a database that already has a client', async () => {
    const orm = await freshOrm();
    await createClient(orm.em.fork(), {
      name: 'Real Co',
      team: 'real',
      adminEmail: 'admin@real.example.com',
      adminPassword: 'real-password-1',
      hashRounds: 4,
    });
    expect(await seedDemo(orm.em.fork(), config, log)).toBeNull();
    const after = await counts(orm);
    expect(after).toMatchObject({ clients: 1, employees: 1, products: 0, orders: 0, walls: 0, slots: 0 });
    expect(await orm.em.fork().count(Client, { team: 'demo' })).toBe(0);
  });
});
