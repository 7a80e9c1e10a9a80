import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { OutboxEvent, SorterSession, type Role } from '../../shared/db/entities';
import { addOrders, addSlots, addWarehouse, putOrderInSlot } from '../support/fixtures';
import { newTenant, signedInEmployee, useTestApi, type Tenant } from '../support/test-api';

describe('walls', () => {
  const api = useTestApi({ workers: ['sorting'] });

  const em = () => api.runtime.orm.em.fork();

  const employee = (t: Tenant, roles: Role[]) => signedInEmployee(api, t, { roles });

  async function connectSession(t: Tenant, wallId: number, userId: number, color: string) {
    const fork = em();
    const s = fork.create(SorterSession, {
      token: randomUUID(),
      clientId: t.clientId,
      wallId,
      userId,
      picklistId: null,
      color,
      status: 'Connected',
      startedAt: new Date(),
      lastActivityAt: new Date(),
      expiresAt: new Date(Date.now() + 8 * 3600_000),
    });
    await fork.flush();
    return s;
  }

  const post = (t: { auth: string }, body: unknown) => request(api.app).post('/api/v1/walls').set('Authorization', t.auth).send(body as object);
  const patch = (t: { auth: string }, id: number, body: unknown) =>
    request(api.app).patch(`/api/v1/walls/${id}`).set('Authorization', t.auth).send(body as object);
  const get = (t: { auth: string }, path: string) => request(api.app).get(`/api/v1${path}`).set('Authorization', t.auth);

  describe('POST /walls', () => {
    it('creates a wall with the defaults and answers the Wall record', async () => {
      const t = await newTenant(api);
      const res = await post(t, { name: '  Jackson St  ' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Jackson St',
        isActive: true,
        maxSorters: 6,
        warehouseId: null,
        workflow: 'FreeSort',
        flowDirection: 'LeftToRight',
        segmentRows: null,
        segmentColumns: null,
        createdAt: expect.any(String),
        slotCount: 0,
        connectedSorters: 0,
        printerId: null,
        autoPrint: false,
      });
      expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);

      const read = await get(t, `/walls/${res.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ ...res.body, slots: [], sessions: [], pendingItems: [] });
    });

    it('stores every field given, for a Manager too', async () => {
      const t = await newTenant(api);
      await addWarehouse(em(), t.clientId, { id: 7 });
      const manager = await employee(t, ['Manager']);
      const body = {
        name: 'Dock 2',
        isActive: false,
        maxSorters: 2,
        warehouseId: 7,
        workflow: 'PicklistSort',
        flowDirection: 'BottomToTop',
        segmentRows: 4,
        segmentColumns: 6,
      };
      const res = await post(manager, body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject(body);
    });

    it('answers 409 wall-name-taken for a name in use, whatever its letter case; another client may use it', async () => {
      const t = await newTenant(api);
      expect((await post(t, { name: 'Jackson St' })).status).toBe(200);
      for (const name of ['Jackson St', 'JACKSON st', ' jackson st ']) {
        const res = await post(t, { name });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('wall-name-taken');
        expect(res.body.detail).toContain("'Jackson St'");
      }
      const other = await newTenant(api);
      expect((await post(other, { name: 'jackson st' })).status).toBe(200);
    });

    it('creates exactly one wall when several requests race for one name; the others get 409, not 500', async () => {
      const t = await newTenant(api);
      const answers = await Promise.all(['Race', 'RACE', 'race', 'Race', 'rAce'].map((name) => post(t, { name })));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
      for (const r of answers.filter((a) => a.status === 409)) expect(r.body.code).toBe('wall-name-taken');
      expect((await get(t, '/walls')).body).toHaveLength(1);
    });

    it('answers 403 to a Sorter and 401 without a token', async () => {
      const t = await newTenant(api);
      const sorter = await employee(t, ['Sorter']);
      const res = await post(sorter, { name: 'Nope' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      const anon = await request(api.app).post('/api/v1/walls').send({ name: 'Nope' });
      expect(anon.status).toBe(401);
      expect((await get(t, '/walls')).body).toEqual([]);
    });

    it.each([
      [{ name: 'A', maxSorters: 7 }, 'maxSorters'],
      [{ name: 'A', maxSorters: 0 }, 'maxSorters'],
      [{ name: 'A', maxSorters: 2.5 }, 'maxSorters'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{}, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: 'A', flowDirection: 'Sideways' }, 'flowDirection'],
      [{ name: 'A', workflow: 'Chaos' }, 'workflow'],
      [{ name: 'A', isActive: 'yes' }, 'isActive'],
      [{ name: 'A', segmentRows: 0 }, 'segmentRows'],
      [{ name: 'A', segmentColumns: 1001 }, 'segmentColumns'],
    ])('answers 400 validation-failed for %j', async (body, field) => {
      const t = await newTenant(api);
      const res = await post(t, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
    });

    it("answers 400 on warehouseId for a warehouse the client does not have (another client's included)", async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      await addWarehouse(em(), other.clientId, { id: 3 });
      for (const warehouseId of [3, 99]) {
        const res = await post(t, { name: `W${warehouseId}`, warehouseId });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation-failed');
        expect(res.body.errors).toEqual([{ path: 'warehouseId', message: expect.stringContaining(String(warehouseId)) }]);
      }
      expect((await get(t, '/walls')).body).toEqual([]);
    });
  });

  describe('GET /walls and /walls/{id}', () => {
    it("lists only the caller's walls, oldest first, with slot and connected-sorter counts", async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      await post(other, { name: 'Foreign' });
      const a = (await post(t, { name: 'A' })).body;
      const b = (await post(t, { name: 'B' })).body;
      await addSlots(em(), t.clientId, a.id, 3);
      await connectSession(t, a.id, t.adminId, 'Red');
      const ended = await connectSession(t, b.id, t.adminId, 'Red');
      const fork = em();
      const s = await fork.findOneOrFail(SorterSession, { id: ended.id });
      s.status = 'Ended';
      s.endReason = 'Stopped';
      s.endedAt = new Date();
      await fork.flush();

      const sorter = await employee(t, ['Sorter']);
      const res = await get(sorter, '/walls');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { ...a, slotCount: 3, connectedSorters: 1 },
        { ...b, slotCount: 0, connectedSorters: 0 },
      ]);
    });

    it('shows the slots by position and the connected sessions; a Sorter sees only their own token', async () => {
      const t = await newTenant(api);
      const wall = (await post(t, { name: 'Main' })).body;
      const slots = await addSlots(em(), t.clientId, wall.id, 3);
      const sorter = await employee(t, ['Sorter']);
      const mine = await connectSession(t, wall.id, sorter.id, 'Blue');
      const admins = await connectSession(t, wall.id, t.adminId, 'Red');

      const res = await get(t, `/walls/${wall.id}`);
      expect(res.status).toBe(200);
      expect(res.body.slotCount).toBe(3);
      expect(res.body.connectedSorters).toBe(2);
      expect(res.body.slots.map((s: { position: number }) => s.position)).toEqual([1, 2, 3]);
      expect(res.body.slots[0]).toEqual({
        id: slots[0]!.id,
        wallId: wall.id,
        serialNumber: slots[0]!.serialNumber,
        crc: slots[0]!.crc,
        sorterBarcode: `A-${slots[0]!.crc}`,
        shipperBarcode: `B-${slots[0]!.crc}`,
        position: 1,
        status: 'Empty',
        orderId: null,
      });
      expect(res.body.sessions).toHaveLength(2);
      const byUser = new Map(res.body.sessions.map((s: { userId: number }) => [s.userId, s]));
      expect(byUser.get(sorter.id)).toMatchObject({ token: mine.token, wallId: wall.id, color: 'Blue', colorHex: '#1E88E5', status: 'Connected', endedAt: null });
      expect(byUser.get(t.adminId)).toMatchObject({ token: admins.token, color: 'Red', colorHex: '#E53935' });

      const asSorter = await get(sorter, `/walls/${wall.id}`);
      expect(asSorter.status).toBe(200);
      const seen = new Map(asSorter.body.sessions.map((s: { userId: number; token: string | null }) => [s.userId, s.token]));
      expect(seen.get(sorter.id)).toBe(mine.token);
      expect(seen.get(t.adminId)).toBeNull();
    });

    it("answers 404 for another client's wall and for a missing one, 400 for a non-numeric id", async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const foreign = (await post(other, { name: 'Theirs' })).body;
      for (const id of [foreign.id, 2147483000]) {
        const res = await get(t, `/walls/${id}`);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not-found');
      }
      const bad = await get(t, '/walls/abc');
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('validation-failed');
      expect((await request(api.app).get('/api/v1/walls')).status).toBe(401);
    });
  });

  describe('PATCH /walls/{id}', () => {
    const events = async (t: Tenant, wallId: number) =>
      em().find(OutboxEvent, { clientId: t.clientId, wallId, type: 'wall.updated' }, { orderBy: { id: 'asc' } });

    it('changes the fields given and writes one wall.updated event carrying the wall', async () => {
      const t = await newTenant(api);
      await addWarehouse(em(), t.clientId, { id: 1 });
      const wall = (await post(t, { name: 'Main' })).body;
      const res = await patch(t, wall.id, { maxSorters: 3, flowDirection: 'RightToLeft', warehouseId: 1, segmentRows: 2, segmentColumns: 5 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...wall, maxSorters: 3, flowDirection: 'RightToLeft', warehouseId: 1, segmentRows: 2, segmentColumns: 5 });
      expect((await get(t, `/walls/${wall.id}`)).body).toMatchObject(res.body);

      const written = await events(t, wall.id);
      expect(written).toHaveLength(1);
      expect(written[0]!.eventId).toMatch(/^[0-9a-f-]{36}$/);
      // The event carries the wall's workflow fields; its printing settings are the API's (docs/api.md §12).
      const { printerId: _printerId, autoPrint: _autoPrint, ...workflowFields } = res.body;
      expect(written[0]!.data).toEqual({ wall: workflowFields, change: 'wall' });

      // Nothing changes: no event.
      const same = await patch(t, wall.id, { maxSorters: 3 });
      expect(same.status).toBe(200);
      expect(await events(t, wall.id)).toHaveLength(1);

      // Back to null.
      const cleared = await patch(t, wall.id, { segmentRows: null, warehouseId: null });
      expect(cleared.body).toMatchObject({ segmentRows: null, warehouseId: null, segmentColumns: 5 });
      expect(await events(t, wall.id)).toHaveLength(2);
    });

    it('answers 409 wall-name-taken when renaming onto another wall, whatever the case; a wall may change its own case', async () => {
      const t = await newTenant(api);
      await post(t, { name: 'Jackson St' });
      const wall = (await post(t, { name: 'Main' })).body;
      const res = await patch(t, wall.id, { name: 'JACKSON ST' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('wall-name-taken');
      expect((await get(t, `/walls/${wall.id}`)).body.name).toBe('Main');
      expect(await events(t, wall.id)).toHaveLength(0);

      const recased = await patch(t, wall.id, { name: 'MAIN' });
      expect(recased.status).toBe(200);
      expect(recased.body.name).toBe('MAIN');
    });

    it('lets maxSorters drop below the connected sessions without ending any, and deactivating ends none either', async () => {
      const t = await newTenant(api);
      const wall = (await post(t, { name: 'Main' })).body;
      const s1 = await employee(t, ['Sorter']);
      await connectSession(t, wall.id, s1.id, 'Red');
      await connectSession(t, wall.id, t.adminId, 'Blue');
      const res = await patch(t, wall.id, { maxSorters: 1, isActive: false });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ maxSorters: 1, isActive: false });
      const read = await get(t, `/walls/${wall.id}`);
      expect(read.body.connectedSorters).toBe(2);
    });

    it('answers 409 slot-not-empty when changing the warehouse while a slot holds an order', async () => {
      const t = await newTenant(api);
      await addWarehouse(em(), t.clientId, { id: 1 });
      await addWarehouse(em(), t.clientId, { id: 2 });
      const wall = (await post(t, { name: 'Main', warehouseId: 1 })).body;
      const [slot] = await addSlots(em(), t.clientId, wall.id, 1);
      await addOrders(em(), t.clientId, [{ id: 501, warehouseId: 1, items: [{ sku: 'SKU-1', qty: 1 }] }]);
      await putOrderInSlot(em(), slot!, 501);

      const res = await patch(t, wall.id, { warehouseId: 2 });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('slot-not-empty');
      expect(res.body.detail).toContain(slot!.crc);
      expect((await get(t, `/walls/${wall.id}`)).body.warehouseId).toBe(1);
      // Other fields still change.
      expect((await patch(t, wall.id, { maxSorters: 4 })).status).toBe(200);
    });

    it('answers 400 for bad values and an unknown warehouse, 403 to a Sorter, 404 for another client', async () => {
      const t = await newTenant(api);
      const wall = (await post(t, { name: 'Main' })).body;
      for (const [body, field] of [
        [{ maxSorters: 7 }, 'maxSorters'],
        [{ name: '' }, 'name'],
        [{ name: null }, 'name'],
        [{ flowDirection: 'leftToRight' }, 'flowDirection'],
        [{ warehouseId: 42 }, 'warehouseId'],
      ] as const) {
        const res = await patch(t, wall.id, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation-failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
      }
      const sorter = await employee(t, ['Sorter']);
      const forbidden = await patch(sorter, wall.id, { maxSorters: 2 });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.code).toBe('forbidden');

      const other = await newTenant(api);
      const notFound = await patch(other, wall.id, { maxSorters: 2 });
      expect(notFound.status).toBe(404);
      expect(notFound.body.code).toBe('not-found');
      expect((await get(t, `/walls/${wall.id}`)).body.maxSorters).toBe(6);
    });
  });
});
