import request from 'supertest';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';

/*
 * The two reads the hub opens with (docs/api.md §5 and §8): the wall's last events, oldest first, as
 * the stream sends them (GET /events/recent), and the shift's figures (GET /walls/{id}/progress).
 * Another client's wall is a 404; bad parameters a 400.
 */

describe("the hub's reads on open", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers the last events oldest first, limited, only of the caller’s walls', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const item = (await scan(api, a.auth, s.token, 'SKU-A')).body;
    await request(api.app).patch(`/api/v1/sort-box-items/${item.id}/confirm`).set('Authorization', a.auth).send({}).expect(200);
    const types = ['session.started', 'sort-box-item.created', 'sort-box-item.confirmed'];
    const read = (q: string, auth = floor.tenant.auth) => request(api.app).get(`/api/v1/events/recent?${q}`).set('Authorization', auth);
    // Relayed events only (what the stream has sent): wait for the relay.
    await waitFor(async () => (await read(`wallId=${floor.wallId}`)).body.length === 3, { what: 'the three events to be relayed' });

    const all = await read(`wallId=${floor.wallId}`, a.auth).expect(200);
    expect(all.body.map((e: { type: string }) => e.type)).toEqual(types);
    expect(all.body[1]).toMatchObject({ wallId: floor.wallId, clientId: floor.tenant.clientId, data: { item: { id: item.id, sku: 'SKU-A' } } });
    expect(all.body[0].data.session.token).toBeUndefined();
    // limit keeps the newest, still oldest first.
    const last2 = await read(`wallId=${floor.wallId}&limit=2`).expect(200);
    expect(last2.body.map((e: { type: string }) => e.type)).toEqual(types.slice(1));

    await read(`wallId=${floor.wallId}&limit=0`).expect(400);
    await read(`wallId=${floor.wallId}&limit=201`).expect(400);
    await read('wallId=abc').expect(400);
    const other = await buildFloor(api);
    await read(`wallId=${floor.wallId}`, other.tenant.auth).expect(404);
  });

  it('counts the units left in the wall’s orders and when each Complete slot became Complete', async () => {
    const floor = await buildFloor(api, {
      slots: 3,
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 3 }] },
        { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] },
      ],
    });
    const progress = () => request(api.app).get(`/api/v1/walls/${floor.wallId}/progress`).set('Authorization', floor.tenant.auth).expect(200);
    expect((await progress()).body).toEqual({ unitsLeft: 0, ordersInSlots: 0, completeSlots: [], oldestCompleteSince: null });

    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    const first = (await scan(api, a.auth, s.token, 'SKU-A')).body;
    // A scan waiting still counts as left.
    expect((await progress()).body).toMatchObject({ unitsLeft: 3, ordersInSlots: 1 });
    await request(api.app).patch(`/api/v1/sort-box-items/${first.id}/confirm`).set('Authorization', a.auth).send({}).expect(200);
    const b = (await scan(api, a.auth, s.token, 'SKU-B')).body;
    const confirmed = await request(api.app).patch(`/api/v1/sort-box-items/${b.id}/confirm`).set('Authorization', a.auth).send({}).expect(200);
    const now = (await progress()).body;
    expect(now).toMatchObject({ unitsLeft: 2, ordersInSlots: 2, completeSlots: [{ crc: b.crc, position: b.position, orderId: 2, since: confirmed.body.confirmedAt }] });
    expect(now.oldestCompleteSince).toBe(confirmed.body.confirmedAt);

    await request(api.app).post(`/api/v1/sort-boxes/B-${b.crc}/release`).set('Authorization', floor.tenant.auth).expect(200);
    expect((await progress()).body).toMatchObject({ unitsLeft: 2, ordersInSlots: 1, completeSlots: [], oldestCompleteSince: null });
    const other = await buildFloor(api);
    await request(api.app).get(`/api/v1/walls/${floor.wallId}/progress`).set('Authorization', other.tenant.auth).expect(404);
  });

  it('answers the wall the same whether its read is matched before the router or by it', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    const a = await floor.sorter(1);
    const { body: s } = await connect(api, floor, a.auth);
    await scan(api, a.auth, s.token, 'SKU-A');
    const get = (path: string, auth = floor.tenant.auth) => request(api.app).get(path).set('Authorization', auth);
    // The exact path is taken before the router (app.ts, hotRoutes); a trailing slash or a query goes through it.
    const hot = await get(`/api/v1/walls/${floor.wallId}`).expect(200);
    expect(hot.body).toMatchObject({ id: floor.wallId, slots: expect.any(Array), sessions: [{ token: s.token }], pendingItems: [{ sku: 'SKU-A' }] });
    expect((await get(`/api/v1/walls/${floor.wallId}/`).expect(200)).body).toEqual(hot.body);
    expect((await get(`/api/v1/walls/${floor.wallId}?x=1`).expect(200)).body).toEqual(hot.body);
    // A Sorter sees no other sorter's token on either path.
    const b = await floor.sorter(2);
    expect((await get(`/api/v1/walls/${floor.wallId}`, b.auth).expect(200)).body.sessions[0].token).toBeNull();
    // Its refusals are the route's: no token, another client's wall, an id no wall has, an id that is no id.
    await request(api.app).get(`/api/v1/walls/${floor.wallId}`).expect(401);
    const other = await buildFloor(api);
    await get(`/api/v1/walls/${floor.wallId}`, other.tenant.auth).expect(404);
    await get('/api/v1/walls/2147483000').expect(404);
    const notAnId = await get('/api/v1/walls/99999999999').expect(400);
    expect(notAnId.headers['content-type']).toMatch(/problem\+json/);
  });
});
