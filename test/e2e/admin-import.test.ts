import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Order, OrderItem, PicklistOrder, Product } from '../../shared/db/entities';
import { newTenant, signedInEmployee, useTestApi, type Tenant } from '../support/test-api';

/*
 * Orders, products and picklists from files (docs/api.md §3, "Imports"): CSV or the PUT loaders' JSON,
 * a dry run's report, all or nothing, the file's own mistakes, the body limit, the roles.
 */
describe('imports', () => {
  const api = useTestApi();
  const em = () => api.runtime.orm.em.fork();

  const post = (auth: string, resource: string, body: string | unknown[], query = '') => {
    const req = request(api.app).post(`/api/v1/admin/${resource}/import${query}`).set('Authorization', auth);
    return typeof body === 'string' ? req.set('Content-Type', 'text/csv').send(body) : req.send(body);
  };
  const put = (t: Tenant, path: string, body: unknown) => request(api.app).put(`/api/v1/admin/${path}`).set('Authorization', t.auth).send(body as object);

  /** A tenant with warehouse 1 and products A-1, B-2, C-3. */
  async function loadedTenant(): Promise<Tenant> {
    const t = await newTenant(api);
    expect((await put(t, 'warehouses', [{ id: 1, name: 'Main' }])).status).toBe(200);
    expect((await put(t, 'products', ['A-1', 'B-2', 'C-3'].map((sku) => ({ sku, title: `Product ${sku}` })))).status).toBe(200);
    return t;
  }

  const HEADER = 'orderId,warehouseId,orderDate,priority,shipToName,shipToStreet1,shipToCity,shipToState,shipToPostalCode,shipToCountry,sku,qty,bins';
  const line = (id: number, sku: string, qty: string | number, over: { warehouse?: number; date?: string; name?: string } = {}) =>
    `${id},${over.warehouse ?? 1},${over.date ?? '2026-03-01T10:00:00Z'},High,${over.name ?? 'Ann Buyer'},1 Main St,Springfield,IL,62701,US,${sku},${qty},R1|R2`;
  const csv = (...rows: string[]) => `${rows.join('\r\n')}\r\n`;

  async function stored(clientId: number) {
    const orders = await em().find(Order, { clientId }, { orderBy: { id: 'asc' } });
    const lines = await em().find(OrderItem, { clientId }, { orderBy: { orderId: 'asc', sku: 'asc' } });
    return { orders: orders.map((o) => o.id), lines: lines.map((l) => `${l.orderId}:${l.sku}x${l.qty}`) };
  }

  it('imports orders from a CSV, an order over several rows, and answers the report', async () => {
    const t = await loadedTenant();
    const res = await post(t.auth, 'orders', csv(HEADER, line(10, 'A-1', 2), line(10, 'b-2', 1), line(11, 'C-3', 5)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ dryRun: false, imported: true, rowsRead: 3, records: 2, created: 2, updated: 0, problemCount: 0, problems: [] });
    expect(await stored(t.clientId)).toEqual({ orders: [10, 11], lines: ['10:A-1x2', '10:B-2x1', '11:C-3x5'] });
    const order = await em().findOneOrFail(Order, { clientId: t.clientId, id: 10 });
    expect(order).toMatchObject({ priority: 'High', shipTo: expect.objectContaining({ name: 'Ann Buyer', state: 'IL' }) });
    const a1 = await em().findOneOrFail(OrderItem, { clientId: t.clientId, orderId: 10, sku: 'A-1' });
    expect(a1.bins).toEqual(['R1', 'R2']);

    // Again, with a line changed: replaced, counted as updated.
    const again = await post(t.auth, 'orders', csv(HEADER, line(10, 'A-1', 3), line(11, 'C-3', 5)));
    expect(again.body).toMatchObject({ imported: true, records: 2, created: 0, updated: 2 });
    expect(await stored(t.clientId)).toEqual({ orders: [10, 11], lines: ['10:A-1x3', '11:C-3x5'] });
  });

  it('dry run: reports the bad row with row, column and code, and changes nothing', async () => {
    const t = await loadedTenant();
    const file = csv(HEADER, line(1, 'A-1', 1), line(1, 'B-2', 1), line(2, 'NOPE-9', 1), line(3, 'C-3', 2));
    const res = await post(t.auth, 'orders', file, '?dryRun=true');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dryRun: true,
      imported: false,
      rowsRead: 4,
      records: 3,
      created: 3,
      updated: 0,
      problemCount: 1,
      problems: [{ row: 4, column: 'sku', code: 'unknown-sku', detail: expect.stringContaining("no product has sku 'NOPE-9'") }],
    });
    expect(await stored(t.clientId)).toEqual({ orders: [], lines: [] });

    // The same file without dryRun: refused with the same report, nothing written.
    const refused = await post(t.auth, 'orders', file);
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'validation-failed', report: { imported: false, problems: res.body.problems }, errors: [{ path: 'row 4, sku' }] });
    expect(refused.body.detail).toMatch(/1 problem in 1 row; nothing was imported/);
    expect(await stored(t.clientId)).toEqual({ orders: [], lines: [] });

    // Fixed: a dry run with no problems changes nothing either; the import then writes it.
    const fixed = file.replace('NOPE-9', 'A-1');
    expect((await post(t.auth, 'orders', fixed, '?dryRun=true')).body).toMatchObject({ imported: false, problemCount: 0, created: 3 });
    expect(await stored(t.clientId)).toEqual({ orders: [], lines: [] });
    expect((await post(t.auth, 'orders', fixed)).body).toMatchObject({ imported: true, created: 3 });
    expect((await stored(t.clientId)).orders).toEqual([1, 2, 3]);
  });

  it('refuses a wrong header: unknown, repeated and missing columns, each named', async () => {
    const t = await loadedTenant();
    const res = await post(t.auth, 'orders', csv(HEADER.replace('shipToCity', 'city').replace('bins', 'qty'), line(1, 'A-1', 1)));
    expect(res.status).toBe(400);
    expect(res.body.report.problems).toEqual([
      { row: 1, column: 'city', code: 'unknown-column', detail: expect.stringContaining("'city' is not a column of orders") },
      { row: 1, column: 'qty', code: 'duplicate-column', detail: expect.stringContaining("column 'qty' twice") },
      { row: 1, column: 'shipToCity', code: 'missing-column', detail: expect.stringContaining("no column 'shipToCity'") },
    ]);
    expect(await stored(t.clientId)).toEqual({ orders: [], lines: [] });
    const empty = await post(t.auth, 'orders', '');
    expect(empty.status).toBe(400);
    expect(empty.body.report.problems).toEqual([{ row: 1, column: '', code: 'empty-file', detail: expect.stringContaining('The file is empty') }]);
    // A header alone: nothing to do, done.
    expect((await post(t.auth, 'orders', `${HEADER}\r\n`)).body).toMatchObject({ imported: true, rowsRead: 0, records: 0, problemCount: 0 });
  });

  it('reads quoted fields with a comma, doubled quotes and a line break, and a byte order mark', async () => {
    const t = await newTenant(api);
    const file = '\uFEFFsku,title,aliases,sitePrice\r\n"Q-1","Mug, ceramic ""12 oz""\nblue",Q1|MUG-Q,12.50\r\nQ-2,Plain,,\r\n';
    const res = await post(t.auth, 'products', file);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: true, rowsRead: 2, created: 2 });
    const q1 = await em().findOneOrFail(Product, { clientId: t.clientId, sku: 'Q-1' });
    expect(q1).toMatchObject({ title: 'Mug, ceramic "12 oz"\nblue', aliases: ['Q1', 'MUG-Q'] });
    expect(Number(q1.sitePrice)).toBe(12.5);

    // The row after a field over two lines is numbered as a spreadsheet shows it.
    const bad = await post(t.auth, 'products', '\uFEFFsku,title,sitePrice\r\n"Q-3","two\nlines",1\r\nQ-4,Four,12;50\r\n', '?dryRun=true');
    expect(bad.body.problems).toEqual([{ row: 4, column: 'sitePrice', code: 'bad-number', detail: expect.stringContaining("'12;50' is not a number") }]);
  });

  it('refuses a semicolon-separated file, naming the delimiter', async () => {
    const t = await loadedTenant();
    const res = await post(t.auth, 'orders', csv(HEADER.replaceAll(',', ';'), line(1, 'A-1', 1).replaceAll(',', ';')));
    expect(res.status).toBe(400);
    expect(res.body.report.problems).toEqual([{ row: 1, column: '', code: 'wrong-delimiter', detail: expect.stringContaining('separated by semicolons (;)') }]);
    expect(await stored(t.clientId)).toEqual({ orders: [], lines: [] });
  });

  it('reports malformed CSV: a stray quote, a row with too few fields', async () => {
    const t = await loadedTenant();
    const stray = await post(t.auth, 'orders', csv(HEADER, line(1, 'A-1', 1), line(2, 'A-1', 1).replace('Ann Buyer', 'Ann "The" Buyer')), '?dryRun=true');
    expect(stray.body.problems).toEqual([{ row: 3, column: '', code: 'malformed-csv', detail: expect.stringContaining('Row 3, field 5 has a quote') }]);
    const short = await post(t.auth, 'orders', csv(HEADER, line(1, 'A-1', 1), '2,1,2026-03-01'), '?dryRun=true');
    expect(short.body.problems).toEqual([{ row: 3, column: '', code: 'malformed-csv', detail: expect.stringContaining('3 fields, the header 13') }]);
  });

  it('reports duplicate ids: an order again after another order, a product twice', async () => {
    const t = await loadedTenant();
    const orders = await post(t.auth, 'orders', csv(HEADER, line(1, 'A-1', 1), line(2, 'A-1', 1), line(1, 'B-2', 1), line(3, 'A-1', 1), line(3, 'A-1', 2)), '?dryRun=true');
    expect(orders.body.problems).toEqual([
      { row: 4, column: 'orderId', code: 'duplicate-id', detail: expect.stringContaining('Order 1 is in rows 2-2 already') },
      { row: 6, column: 'sku', code: 'duplicate-value', detail: expect.stringContaining("sku 'A-1' is listed twice in this order") },
    ]);
    const products = await post(t.auth, 'products', csv('sku,title', 'Z-1,One', 'Z-2,Two', 'z-1,Again'), '?dryRun=true');
    expect(products.body.problems).toEqual([{ row: 4, column: 'sku', code: 'duplicate-id', detail: expect.stringContaining("duplicate sku (compared case-insensitively) 'Z-1'") }]);
    expect(await em().count(Product, { clientId: t.clientId })).toBe(3);
  });

  it('reports a quantity that is not a positive whole number, a bad date, an unknown warehouse and SKU', async () => {
    const t = await loadedTenant();
    const res = await post(
      t.auth,
      'orders',
      csv(HEADER, line(1, 'A-1', 0), line(2, 'A-1', -2), line(3, 'A-1', '2.5'), line(4, 'A-1', 1, { date: '03/01/2026' }), line(5, 'A-1', 1, { warehouse: 9 }), line(6, 'X-9', 1), line(7, 'A-1', '')),
      '?dryRun=true',
    );
    expect(res.body.problems.map((p: { row: number; column: string; code: string }) => `${p.row} ${p.column} ${p.code}`)).toEqual([
      '2 qty bad-quantity',
      '3 qty bad-quantity',
      '4 qty bad-quantity',
      '5 orderDate bad-date',
      '6 warehouseId unknown-warehouse',
      '7 sku unknown-sku',
      '8 qty missing-value',
    ]);
    expect(res.body).toMatchObject({ rowsRead: 7, records: 7 });
    expect(await stored(t.clientId)).toEqual({ orders: [], lines: [] });
  });

  it('reports an order being sorted whose lines would lose their progress, and changes nothing', async () => {
    const t = await loadedTenant();
    expect((await post(t.auth, 'orders', csv(HEADER, line(1, 'A-1', 3), line(1, 'B-2', 1), line(2, 'C-3', 1)))).status).toBe(200);
    const e = em();
    const a = await e.findOneOrFail(OrderItem, { clientId: t.clientId, orderId: 1, sku: 'A-1' });
    a.confirmedQty = 2;
    await e.flush();
    const before = await stored(t.clientId);

    // Order 1 is being sorted: 2 units of A-1 confirmed. Its qty cannot drop below 2; order 2 is fine.
    const res = await post(t.auth, 'orders', csv(HEADER, line(1, 'A-1', 1), line(1, 'B-2', 1), line(2, 'C-3', 4)));
    expect(res.status).toBe(400);
    expect(res.body.report.problems).toEqual([{ row: 2, column: 'qty', code: 'order-sorting', detail: expect.stringContaining("2 units of 'A-1' sorted") }]);
    // Nor can the sorted line go.
    const dropped = await post(t.auth, 'orders', csv(HEADER, line(1, 'B-2', 1)), '?dryRun=true');
    expect(dropped.body.problems).toEqual([{ row: 2, column: 'sku', code: 'order-sorting', detail: expect.stringContaining("line 'A-1' of order 1 has 2 units sorted") }]);
    expect(await stored(t.clientId)).toEqual(before);
  });

  it('refuses an order column that differs between the rows of one order', async () => {
    const t = await loadedTenant();
    const res = await post(t.auth, 'orders', csv(HEADER, line(1, 'A-1', 1), line(1, 'B-2', 1, { name: 'Bob' })), '?dryRun=true');
    expect(res.body.problems).toEqual([{ row: 3, column: 'shipToName', code: 'conflicting-value', detail: expect.stringContaining("'Bob' differs from row 2") }]);
  });

  it('imports picklists from a CSV, one row per order', async () => {
    const t = await loadedTenant();
    await post(t.auth, 'orders', csv(HEADER, line(1, 'A-1', 1), line(2, 'A-1', 1)));
    const res = await post(t.auth, 'picklists', csv('picklistId,status,orderId', '7,Open,1', '7,Open,2', '8,Closed,'));
    expect(res.body).toMatchObject({ imported: true, rowsRead: 3, records: 2, created: 2 });
    const members = await em().find(PicklistOrder, { clientId: t.clientId }, { orderBy: { orderId: 'asc' } });
    expect(members.map((m) => `${m.picklistId}:${m.orderId}`)).toEqual(['7:1', '7:2']);
    const bad = await post(t.auth, 'picklists', csv('picklistId,status,orderId', '7,Open,1', '7,Open,99'), '?dryRun=true');
    expect(bad.body).toMatchObject({ created: 0, updated: 1, problems: [{ row: 3, column: 'orderId', code: 'unknown-order' }] });
  });

  it('takes the JSON arrays of the PUT loaders, reporting by index and field', async () => {
    const t = await loadedTenant();
    const shipTo = { name: 'Ann', street1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' };
    const good = { id: 5, warehouseId: 1, orderDate: '2026-03-01', shipTo, items: [{ sku: 'A-1', qty: 1 }] };
    const res = await post(t.auth, 'orders', [good, { ...good, id: 6, items: [{ sku: 'A-1', qty: 0 }, { sku: 'NOPE', qty: 1 }] }, { ...good, id: 5 }], '?dryRun=true');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rowsRead: 3, records: 3 });
    expect(res.body.problems).toEqual([
      { row: 1, column: 'items[0].qty', code: 'bad-quantity', detail: expect.any(String) },
      { row: 2, column: 'id', code: 'duplicate-id', detail: expect.stringContaining("duplicate order id '5'") },
    ]);
    const refused = await post(t.auth, 'orders', [good, { ...good, id: 6, warehouseId: 4 }]);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: '[1].warehouseId', message: expect.stringContaining('warehouse 4 does not exist') }]);
    expect(await stored(t.clientId)).toEqual({ orders: [], lines: [] });
    const ok = await post(t.auth, 'orders', [good]);
    expect(ok.body).toMatchObject({ imported: true, created: 1 });
    expect((await post(t.auth, 'products', [{ sku: 'J-1', title: 'Json' }])).body).toMatchObject({ imported: true, created: 1 });
    expect((await post(t.auth, 'picklists', [{ id: 1, status: 'Open', orderIds: [5] }])).body).toMatchObject({ imported: true, created: 1 });
  });

  it('lets only an Admin import, as the PUT loaders', async () => {
    const t = await loadedTenant();
    const sorter = await signedInEmployee(api, t, { roles: ['Sorter'] });
    const manager = await signedInEmployee(api, t, { roles: ['Manager'] });
    for (const resource of ['orders', 'products', 'picklists']) {
      const res = await post(sorter.auth, resource, 'sku,title\r\nA,B\r\n');
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(new RegExp(`Only an Admin may import ${resource}; you are signed in as a Sorter`));
      expect((await post(manager.auth, resource, [])).status).toBe(403);
    }
    expect((await request(api.app).post('/api/v1/admin/orders/import').set('Content-Type', 'text/csv').send('x')).status).toBe(401);
  });

  it('documents the CSV and JSON forms and the report in the OpenAPI document', async () => {
    const doc = (await request(api.app).get('/api/v1/openapi.json')).body;
    for (const resource of ['orders', 'products', 'picklists']) {
      const op = doc.paths[`/api/v1/admin/${resource}/import`].post;
      expect(Object.keys(op.requestBody.content)).toEqual(expect.arrayContaining(['application/json', 'text/csv']));
      expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'dryRun', in: 'query' })]));
      expect(op.responses['200'].content['application/json'].schema.properties).toHaveProperty('problems');
      expect(op.responses['413']).toBeDefined();
      expect(op['x-roles']).toEqual(['Admin']);
    }
    expect(doc.paths['/api/v1/admin/orders/import'].post.description).toContain('orderId,warehouseId,orderDate');
  });

  describe('a 20 MB file', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer(api.app);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    /** Sends up to `total` bytes of CSV (declared, or chunked when `declare` is false) until the answer comes. */
    function send(auth: string, total: number, declare: boolean): Promise<{ status: number; body: any; sent: number }> {
      return new Promise((resolve, reject) => {
        let sent = 0;
        let answered = false;
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/v1/admin/orders/import',
            headers: { 'content-type': 'text/csv', authorization: auth, ...(declare ? { 'content-length': String(total) } : {}) },
          },
          (res) => {
            answered = true;
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => {
              req.destroy();
              resolve({ status: res.statusCode!, body: JSON.parse(text), sent });
            });
          },
        );
        req.on('error', (err) => (answered ? undefined : reject(err)));
        const row = Buffer.from(`${line(1, 'A-1', 1)}\r\n`.repeat(500));
        const pump = () => {
          while (!answered && sent < total) {
            const piece = row.subarray(0, Math.min(row.length, total - sent));
            sent += piece.length;
            if (!req.write(piece)) {
              req.once('drain', pump);
              return;
            }
          }
          if (!declare && sent >= total && !answered) req.end();
        };
        req.write(`${HEADER}\r\n`);
        pump();
      });
    }

    it('is refused with 413 before it is read when it declares its length, and when it streams without one', async () => {
      const t = await loadedTenant();
      const declared = await send(t.auth, 20 * 1024 * 1024, true);
      expect(declared.status).toBe(413);
      expect(declared.body).toMatchObject({ code: 'payload-too-large', detail: expect.stringContaining('limit of 16 MB') });
      expect(declared.sent).toBeLessThan(20 * 1024 * 1024);
      const chunked = await send(t.auth, 20 * 1024 * 1024, false);
      expect(chunked.status).toBe(413);
      expect(chunked.body).toMatchObject({ code: 'payload-too-large' });
      expect(await stored(t.clientId)).toEqual({ orders: [], lines: [] });
    }, 60_000);
  });
});
