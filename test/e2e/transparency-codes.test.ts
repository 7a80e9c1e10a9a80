import request from 'supertest';
import { addOrders, addProducts, addWarehouse } from '../support/fixtures';
import { newTenant, signIn, uniqueSuffix, useTestApi, type Tenant } from '../support/test-api';

const BASE = '/api/v1/marketplace-transparency-code';
let serial = 0;
/** A fresh, valid Amazon code: AZ: + 26 upper-case letters or digits. */
const azCode = () => `AZ:${`${uniqueSuffix()}${++serial}`.toUpperCase().replace(/[^A-Z0-9]/g, '0').padEnd(26, 'X')}`;

describe('marketplace transparency codes', () => {
  const api = useTestApi();

  /** Order 1: 2 × GADGET (needs codes), 1 × PLAIN, 2 × KIT (each 3 × GADGET, 1 × CABLE needing codes). */
  async function setup(): Promise<Tenant> {
    const t = await newTenant(api);
    const em = api.runtime.orm.em.fork();
    const wh = await addWarehouse(em, t.clientId);
    await addProducts(em, t.clientId, [
      { sku: 'GADGET', requiresTransparencyCode: true },
      { sku: 'PLAIN' },
      { sku: 'CABLE', requiresTransparencyCode: true },
      { sku: 'KIT', kitComponents: [{ sku: 'GADGET', qty: 3 }, { sku: 'cable', qty: 1 }] },
    ]);
    await addOrders(em, t.clientId, [
      { id: 1, warehouseId: wh.id, items: [{ sku: 'GADGET', qty: 2 }, { sku: 'PLAIN', qty: 1 }, { sku: 'KIT', qty: 2 }] },
      { id: 2, warehouseId: wh.id, items: [{ sku: 'GADGET', qty: 1 }] },
    ]);
    return t;
  }

  const post = (t: Tenant, body: unknown, query = '') => request(api.app).post(`${BASE}${query}`).set('Authorization', t.auth).send(body as object);
  const get = (t: Tenant, path: string) => request(api.app).get(`${BASE}${path}`).set('Authorization', t.auth);
  const del = (t: Tenant, path: string) => request(api.app).delete(`${BASE}${path}`).set('Authorization', t.auth);

  it('records a code with its product SKU, creator and time; a sorter may do it', async () => {
    const t = await setup();
    const sorter = await request(api.app)
      .post('/api/v1/admin/employees')
      .set('Authorization', t.auth)
      .send({ email: `s-${uniqueSuffix()}@example.com`, firstName: 'S', lastName: 'S', password: 'sorter-password', roles: ['Sorter'] });
    const auth = `Bearer ${await signIn(api.app, sorter.body.email, 'sorter-password')}`;
    const code = azCode();
    const res = await request(api.app).post(BASE).set('Authorization', auth).send({ orderId: 1, productId: 'gadget', code: `  ${code}\r\n` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      orderId: 1,
      productId: 'GADGET',
      kitParentProductId: null,
      code,
      createdAt: expect.any(String),
      createdBy: sorter.body.id,
    });
    const listed = await request(api.app).get(`${BASE}/orders/1`).set('Authorization', auth);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([res.body]);
  });

  it.each([
    ['an Amazon code', `ZA:${'A1'.repeat(13)}`],
    ['an SGTIN', '(01)00012345678905(21)ABCDEFGHIJ123456'],
    ['a 7-character brand serial', 'AB-1234'],
    ['a 22-character brand serial', 'B'.repeat(22)],
  ])('accepts %s', async (_what, code) => {
    const t = await setup();
    const res = await post(t, { orderId: 2, productId: 'GADGET', code });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(code);
  });

  it.each([
    ['AZ: with 25 characters', `AZ:${'A'.repeat(25)}`],
    ['AZ: with lower-case letters', `AZ:${'a'.repeat(26)}`],
    ['a 6-character serial', 'ABC123'],
    ['a 23-character serial', 'C'.repeat(23)],
    ['a 38-character SGTIN with a space', '(01)00012345678905(21)ABCDEFG IJ123456'],
    ['a serial with punctuation', 'ABC!1234'],
  ])('refuses %s with 422 invalid-transparency-code', async (_what, code) => {
    const t = await setup();
    const res = await post(t, { orderId: 2, productId: 'GADGET', code });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'invalid-transparency-code', errors: [{ path: 'code' }] });
    expect(res.body.detail).toMatch(/transparency code/);
  });

  it('refuses a code already recorded in the company with 409 transparency-code-exists, another company may use it', async () => {
    const t = await setup();
    const code = azCode();
    expect((await post(t, { orderId: 1, productId: 'GADGET', code })).status).toBe(200);
    const again = await post(t, { orderId: 2, productId: 'GADGET', code });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('transparency-code-exists');
    expect(again.body.detail).toContain('order 1');
    const other = await setup();
    expect((await post(other, { orderId: 2, productId: 'GADGET', code })).status).toBe(200);
  });

  it('answers transparency-code-exists for a code already recorded, even when the product\'s codes are complete or it is elsewhere', async () => {
    const t = await setup();
    const code = azCode();
    // Order 2 holds one GADGET: this code completes it.
    expect((await post(t, { orderId: 2, productId: 'GADGET', code })).status).toBe(200);
    for (const body of [
      { orderId: 2, productId: 'GADGET', code }, // the same order and product, now complete
      { orderId: 2, productId: 'gadget', code: ` ${code}\r\n` }, // as a scanner sends it
      { orderId: 1, productId: 'GADGET', code }, // another order, with units left
      { orderId: 2, productId: 'PLAIN', code }, // a product the order does not hold
    ]) {
      const again = await post(t, body);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('transparency-code-exists');
      expect(again.body.detail).toContain('order 2');
    }
    // A new code for the complete product is still refused as complete.
    expect((await post(t, { orderId: 2, productId: 'GADGET', code: azCode() })).body.code).toBe('transparency-codes-complete');
  });

  it('takes at most one code per unit: 409 transparency-codes-complete, also when requests race', async () => {
    const t = await setup();
    // Order 2 holds one GADGET: of five simultaneous requests exactly one wins.
    const results = await Promise.all(Array.from({ length: 5 }, () => post(t, { orderId: 2, productId: 'GADGET', code: azCode() })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const refused = results.find((r) => r.status === 409)!;
    expect(refused.body.code).toBe('transparency-codes-complete');
    expect(refused.body.detail).toContain("1 unit of 'GADGET'");
  });

  it('fills the product line first, then its kits; preferredKitParentProductId picks the kit', async () => {
    const t = await setup();
    const kitted = await post(t, { orderId: 1, productId: 'GADGET', code: azCode() }, '?preferredKitParentProductId=kit');
    expect(kitted.status).toBe(200);
    expect(kitted.body.kitParentProductId).toBe('KIT');
    const own = [await post(t, { orderId: 1, productId: 'GADGET', code: azCode() }), await post(t, { orderId: 1, productId: 'GADGET', code: azCode() })];
    expect(own.map((r) => r.body.kitParentProductId)).toEqual([null, null]);
    // The line's two units are taken: the next goes into the kit without asking.
    const next = await post(t, { orderId: 1, productId: 'GADGET', code: azCode() });
    expect(next.body.kitParentProductId).toBe('KIT');
    // A component known only through the kit (CABLE, loaded as 'cable' in the kit) is recorded under its product SKU.
    const cable = await post(t, { orderId: 1, productId: 'CABLE', code: azCode() });
    expect(cable.status).toBe(200);
    expect(cable.body).toMatchObject({ productId: 'CABLE', kitParentProductId: 'KIT' });
  });

  it('refuses a preferred kit that does not hold the product with 400, and a product not in the order with 404', async () => {
    const t = await setup();
    const wrongKit = await post(t, { orderId: 1, productId: 'GADGET', code: azCode() }, '?preferredKitParentProductId=PLAIN');
    expect(wrongKit.status).toBe(400);
    expect(wrongKit.body).toMatchObject({ code: 'validation-failed', errors: [{ path: 'preferredKitParentProductId' }] });
    expect(wrongKit.body.detail).toContain("inside 'KIT'");
    const absent = await post(t, { orderId: 2, productId: 'PLAIN', code: azCode() });
    expect(absent.status).toBe(404);
    expect(absent.body.detail).toContain("no product 'PLAIN'");
    const noOrder = await post(t, { orderId: 999, productId: 'GADGET', code: azCode() });
    expect(noOrder.status).toBe(404);
    const bad = await post(t, { orderId: 'x', productId: '', code: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation-failed');
  });

  it('summarizes the products that need codes, with kit contents counted', async () => {
    const t = await setup();
    const c1 = azCode();
    await post(t, { orderId: 1, productId: 'GADGET', code: c1 });
    const res = await get(t, '/orders/1/products/required');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      GADGET: { productId: 'GADGET', requiredQuantity: 2 + 2 * 3, codes: [c1], remainingQuantity: 7 },
      CABLE: { productId: 'CABLE', requiredQuantity: 2, codes: [], remainingQuantity: 2 },
    });
    expect((await get(t, '/orders/999/products/required')).status).toBe(404);
  });

  it('says whether a product of an order needs codes', async () => {
    const t = await setup();
    expect((await get(t, '/orders/1/products/required/gadget')).body).toBe(true);
    expect((await get(t, '/orders/1/products/required/CABLE')).body).toBe(true);
    expect((await get(t, '/orders/1/products/required/PLAIN')).body).toBe(false);
    expect((await get(t, '/orders/1/products/required/NOPE')).body).toBe(false);
    expect((await get(t, '/orders/999/products/required/GADGET')).status).toBe(404);
  });

  it('lists with repeated filters of each kind', async () => {
    const t = await setup();
    const [a, b, c] = [azCode(), azCode(), azCode()];
    await post(t, { orderId: 1, productId: 'GADGET', code: a });
    await post(t, { orderId: 1, productId: 'CABLE', code: b });
    await post(t, { orderId: 2, productId: 'GADGET', code: c });
    const codes = async (q: string) => (await get(t, q)).body.map((r: { code: string }) => r.code);
    expect(await codes('')).toEqual([a, b, c]);
    expect(await codes('?orderId=1')).toEqual([a, b]);
    expect(await codes('?orderId=1&orderId=2&productId=gadget')).toEqual([a, c]);
    expect(await codes(`?transparencyCode=${encodeURIComponent(b)}&transparencyCode=${encodeURIComponent(c)}`)).toEqual([b, c]);
    expect(await codes('?orderId=2&productId=CABLE')).toEqual([]);
    expect((await get(t, '?orderId=abc')).status).toBe(400);
    // Another company sees none of them.
    const other = await setup();
    expect(await (async () => (await get(other, '')).body)()).toEqual([]);
  });

  it('deletes one code, a product’s codes, or all of an order’s codes', async () => {
    const t = await setup();
    const [a, b, c, d] = [azCode(), azCode(), azCode(), azCode()];
    await post(t, { orderId: 1, productId: 'GADGET', code: a });
    await post(t, { orderId: 1, productId: 'GADGET', code: b });
    await post(t, { orderId: 1, productId: 'CABLE', code: c });
    await post(t, { orderId: 2, productId: 'GADGET', code: d });
    const left = async (orderId: number) => (await get(t, `/orders/${orderId}`)).body.map((r: { code: string }) => r.code);

    expect((await del(t, `/orders/1/codes/${encodeURIComponent(a)}`)).status).toBe(200);
    expect(await left(1)).toEqual([b, c]);
    const missing = await del(t, `/orders/1/codes/${encodeURIComponent(d)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain(d);

    expect((await del(t, '/orders/1/products/gadget')).status).toBe(200);
    expect(await left(1)).toEqual([c]);

    expect((await del(t, '/orders/1')).status).toBe(200);
    expect(await left(1)).toEqual([]);
    expect(await left(2)).toEqual([d]);
    // The freed code can be recorded again.
    expect((await post(t, { orderId: 1, productId: 'GADGET', code: a })).status).toBe(200);

    for (const path of ['/orders/999', '/orders/999/products/GADGET', `/orders/999/codes/${encodeURIComponent(a)}`]) {
      expect((await del(t, path)).status).toBe(404);
    }
    expect((await get(t, '/orders/999')).status).toBe(404);
  });
});
