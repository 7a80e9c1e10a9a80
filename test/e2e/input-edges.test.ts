import request from 'supertest';
import { newTenant, useTestApi, type Tenant } from '../support/test-api';

// The edges of what a client may send (docs/api.md §1, "Bad input and messages"): dates at PostgreSQL's
// and ISO 8601's limits, text PostgreSQL cannot store, and validation messages in words.

describe('input at the edges', () => {
  const api = useTestApi();
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant(api, 'Edges');
    await request(api.app).put('/api/v1/admin/warehouses').set('Authorization', t.auth).send([{ id: 1, name: 'Main' }]).expect(200);
    await request(api.app).put('/api/v1/admin/products').set('Authorization', t.auth).send([{ sku: 'E-1', title: 'Edge' }]).expect(200);
  });

  const shipTo = { name: 'A', street1: '1 Main St', city: 'X', postalCode: '1', country: 'US' };
  const putOrder = (id: number, orderDate: string) =>
    request(api.app)
      .put('/api/v1/admin/orders')
      .set('Authorization', t.auth)
      .send([{ id, warehouseId: 1, orderDate, shipTo, items: [{ sku: 'E-1', qty: 1 }] }]);

  it('stores order dates at the first and last instant of years 1..9999 UTC and answers them as sent', async () => {
    const first = await putOrder(1, '0001-01-01');
    expect(first.status).toBe(200);
    expect(first.body.items[0].orderDate).toBe('0001-01-01T00:00:00.000Z');
    const last = await putOrder(2, '9999-12-31T23:59:59Z');
    expect(last.status).toBe(200);
    expect(last.body.items[0].orderDate).toBe('9999-12-31T23:59:59.000Z');
    const listed = await request(api.app).get('/api/v1/orders/unshipped?bins=false&recent=false').set('Authorization', t.auth);
    expect(listed.status).toBe(200);
    expect(listed.body.map((o: { orderDate: string }) => o.orderDate).sort()).toEqual(['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.000Z']);
  });

  it.each(['0000-01-01', '9999-12-31T23:59:59-14:00', '0001-01-01T00:00:00+01:00', '+010000-01-01T00:00:00Z'])(
    'refuses orderDate %s with 400 naming the range, nothing stored',
    async (orderDate) => {
      const res = await putOrder(3, orderDate);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ path: '[0].orderDate', in: 'body' })]);
      expect(res.body.errors[0].message).toMatch(/0001-01-01 and 9999-12-31|ISO 8601/);
      const ids = await request(api.app).get('/api/v1/orders/unshipped/ids?bins=false&recent=false').set('Authorization', t.auth);
      expect(ids.body).not.toContain(3);
    },
  );

  it.each(['9999-12', '0001-01'])('answers usage for month %s (0 slots), not a 500', async (month) => {
    const res = await request(api.app).get(`/api/v1/admin/subscriptions/sorting/usage?month=${month}`).set('Authorization', t.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ month, slotsUsed: 0 });
  });

  it('refuses month 0000-01 and 2026-13 in words', async () => {
    for (const month of ['0000-01', '2026-13']) {
      const res = await request(api.app).get(`/api/v1/admin/subscriptions/sorting/usage?month=${month}`).set('Authorization', t.auth);
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe("Query parameter 'month' must be a month as YYYY-MM, from 0001-01 to 9999-12.");
    }
  });

  it.each([
    ['sign-in user name', () => request(api.app).post('/token').send({ username: 'a\u0000b@example.com', password: 'x' }), 'username'],
    ['employee e-mail in the path', () => request(api.app).get('/api/v1/employees/by-email/%00').set('Authorization', t.auth), 'path'],
    ['catalog productID', () => request(api.app).get('/catalog/rest/api/Catalog/Prices?productID=E%00').set('Authorization', t.auth), 'productID'],
    ['a lone surrogate in a wall name', () => request(api.app).post('/api/v1/walls').set('Authorization', t.auth).send({ name: 'Wall \uD83D' }), 'name'],
    ['a malformed percent-encoding', () => request(api.app).get('/api/v1/walls/%E0%A4%A').set('Authorization', t.auth), 'path'],
    // The scan and the confirm are taken before the router (app.ts): screened all the same.
    ['a NUL in a scan\'s query', () => request(api.app).post('/api/v1/sort-box-items?x=%00').set('Authorization', t.auth).send({}), 'x'],
    ['a NUL in a scanned barcode', () => request(api.app).post('/api/v1/sort-box-items').set('Authorization', t.auth).send({ sessionToken: 's', barcode: 'A\u0000' }), 'barcode'],
    ['a NUL in a confirm\'s units', () => request(api.app).patch('/api/v1/sort-box-items/1/confirm?units=1%00').set('Authorization', t.auth), 'units'],
  ])('refuses %s with 400 validation-failed saying why', async (_what, send, path) => {
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation-failed');
    expect(res.body.errors[0].path).toBe(path);
    expect(res.body.detail).toMatch(/NUL character|unpaired UTF-16 surrogate|percent-encoded UTF-8/);
  });

  it('answers every request with its X-Request-Id: the caller\'s own up to 128 characters, else a new UUID', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const own = await request(api.app).post('/api/v1/sort-box-items').set('X-Request-Id', 'scan-42').send({});
    expect(own.status).toBe(401);
    expect(own.headers['x-request-id']).toBe('scan-42');
    const long = await request(api.app).patch('/api/v1/sort-box-items/7/confirm').set('X-Request-Id', 'x'.repeat(129));
    expect(long.status).toBe(401);
    expect(long.headers['x-request-id']).toMatch(uuid);
    const a = await request(api.app).get('/healthz').expect(200);
    const b = await request(api.app).get('/api/v1/nothing-here').expect(404);
    expect(a.headers['x-request-id']).toMatch(uuid);
    expect(b.headers['x-request-id']).toMatch(uuid);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it('answers a JSON body sent as text/plain (or a form) with 415 naming application/json, nothing changed', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await request(api.app).post('/api/v1/walls').set('Authorization', t.auth).set('Content-Type', type).send(JSON.stringify({ name: 'Plain' }));
      expect(res.status).toBe(415);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 415, code: 'unsupported-media-type' });
      expect(res.body.detail).toContain(`The request body is ${type}`);
      expect(res.body.detail).toContain('Content-Type: application/json');
    }
    const token = await request(api.app).post('/token').set('Content-Type', 'text/plain').send(JSON.stringify({ username: 'x@example.com', password: 'x' }));
    expect(token.status).toBe(415);
    const walls = await request(api.app).get('/api/v1/walls').set('Authorization', t.auth).expect(200);
    expect(walls.body.map((w: { name: string }) => w.name)).not.toContain('Plain');
  });

  it.each(['99999999999999999999', '-99999999999999999999', '2147483648'])('reports one error for the one path parameter id = %s', async (id) => {
    const res = await request(api.app).get(`/api/v1/walls/${id}`).set('Authorization', t.auth);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'id', in: 'path', message: expect.stringMatching(/^must be (at most 2,?147,?483,?647|at least 1)/) }]);
    expect(res.body.detail).toMatch(/^Path parameter 'id' must be/);
  });
});
