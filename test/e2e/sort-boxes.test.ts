import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { OutboxEvent, SortBoxItem, SorterSession, type Role } from '../../shared/db/entities';
import { addOrders, addProducts, addSlots, addWall, addWarehouse, putOrderInSlot } from '../support/fixtures';
import { newTenant, signedInEmployee, uniqueSuffix, useTestApi, type Tenant } from '../support/test-api';

// Two different serial numbers with the same CRC-32 (found once with python3's zlib.crc32).
const COLLIDING = ['dummy-29685295', 'dummy-32060020'] as const;
const COLLIDING_CRC = 'B602189F';

describe('slots (sort boxes)', () => {
  const api = useTestApi({ workers: ['sorting'] });

  const em = () => api.runtime.orm.em.fork();

  const employee = (t: Tenant, roles: Role[]) => signedInEmployee(api, t, { roles });

  const wall = async (t: Tenant, name = `Wall ${uniqueSuffix()}`) => {
    const res = await request(api.app).post('/api/v1/walls').set('Authorization', t.auth).send({ name });
    expect(res.status).toBe(200);
    return res.body as { id: number; name: string };
  };
  const put = (t: { auth: string }, wallId: number, body: unknown) =>
    request(api.app).put(`/api/v1/walls/${wallId}/sort-boxes`).set('Authorization', t.auth).send(body as object);
  const del = (t: { auth: string }, wallId: number, crc: string) =>
    request(api.app).delete(`/api/v1/walls/${wallId}/sort-boxes/${crc}`).set('Authorization', t.auth);
  const slotsOf = async (t: Tenant, wallId: number) => {
    const res = await request(api.app).get(`/api/v1/walls/${wallId}`).set('Authorization', t.auth);
    expect(res.status).toBe(200);
    return res.body.slots as { id: number; serialNumber: string; crc: string; position: number }[];
  };
  const wallEvents = (t: Tenant, wallId: number) => em().count(OutboxEvent, { clientId: t.clientId, wallId, type: 'wall.updated' });

  describe('PUT /walls/{id}/sort-boxes', () => {
    it('attaches new slots with their crc, barcodes and positions, in request order', async () => {
      const t = await newTenant(api);
      const w = await wall(t);
      const res = await put(t, w.id, { serialNumbers: ['0x1A2B3C4D', '  0xFFEE  ', 'dummy slot 7'] });
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(3);
      // zlib.crc32(b'0x1A2B3C4D') == 0x5A41198A
      expect(res.body[0]).toEqual({
        id: expect.any(Number),
        wallId: w.id,
        serialNumber: '0x1A2B3C4D',
        crc: '5A41198A',
        sorterBarcode: 'A-5A41198A',
        shipperBarcode: 'B-5A41198A',
        position: 1,
        status: 'Empty',
        orderId: null,
      });
      expect(res.body.map((b: { serialNumber: string }) => b.serialNumber)).toEqual(['0x1A2B3C4D', '0xFFEE', 'dummy slot 7']);
      expect(res.body.map((b: { position: number }) => b.position)).toEqual([1, 2, 3]);
      for (const b of res.body) expect(b.crc).toMatch(/^[0-9A-F]{8}$/);
      expect(await slotsOf(t, w.id)).toEqual(res.body);
      expect(await wallEvents(t, w.id)).toBe(1);
      const [event] = await em().find(OutboxEvent, { clientId: t.clientId, wallId: w.id, type: 'wall.updated' });
      expect(event!.data).toEqual({ wall: expect.objectContaining({ id: w.id, name: w.name }), change: 'sort-boxes-attached', sortBoxes: res.body });
    });

    it('accepts a bare array and appends after the highest position', async () => {
      const t = await newTenant(api);
      const w = await wall(t);
      await addSlots(em(), t.clientId, w.id, 2);
      const res = await put(t, w.id, ['0xAA', '0xBB']);
      expect(res.status).toBe(200);
      expect(res.body.map((b: { serialNumber: string; position: number }) => [b.serialNumber, b.position])).toEqual([
        ['0xAA', 3],
        ['0xBB', 4],
      ]);
    });

    it('is idempotent: a repeated PUT answers the same slots and writes nothing; a mixed one appends only the new serials', async () => {
      const t = await newTenant(api);
      const w = await wall(t);
      const first = await put(t, w.id, { serialNumbers: ['0x01', '0x02'] });
      expect(first.status).toBe(200);
      const again = await put(t, w.id, { serialNumbers: ['0x02', '0x01'] });
      expect(again.status).toBe(200);
      expect(again.body).toEqual([first.body[1], first.body[0]]);
      expect(await wallEvents(t, w.id)).toBe(1);

      const mixed = await put(t, w.id, ['0x03', '0x01', '0x03', '0x04']);
      expect(mixed.status).toBe(200);
      expect(mixed.body.map((b: { serialNumber: string; position: number }) => [b.serialNumber, b.position])).toEqual([
        ['0x03', 3],
        ['0x01', 1],
        ['0x03', 3],
        ['0x04', 4],
      ]);
      expect(mixed.body[1]).toEqual(first.body[0]);
      expect(mixed.body[0].id).toBe(mixed.body[2].id);
      expect(await slotsOf(t, w.id)).toHaveLength(4);
      expect(await wallEvents(t, w.id)).toBe(2);
    });

    it('answers 409 serial-attached-elsewhere naming the serial and its wall, attaching nothing', async () => {
      const t = await newTenant(api);
      const a = await wall(t, 'Jackson St');
      const b = await wall(t, 'Dock 2');
      expect((await put(t, a.id, ['0xA1'])).status).toBe(200);
      const res = await put(t, b.id, { serialNumbers: ['0xB1', '0xA1', '0xB2'] });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('serial-attached-elsewhere');
      expect(res.body.detail).toContain("'0xA1'");
      expect(res.body.detail).toContain("'Jackson St'");
      expect(res.body.errors).toEqual([{ path: 'serialNumbers[1]', message: expect.stringContaining("'Jackson St'") }]);
      expect(await slotsOf(t, b.id)).toEqual([]);
      expect((await slotsOf(t, a.id)).map((s) => s.serialNumber)).toEqual(['0xA1']);
      expect(await wallEvents(t, b.id)).toBe(0);
      // 0xB1 was not attached anywhere: it can still go on wall a.
      expect((await put(t, a.id, ['0xB1'])).status).toBe(200);
    });

    it('attaches a serial to exactly one wall when two requests race for it; the other gets 409, not 500', async () => {
      const t = await newTenant(api);
      const walls = await Promise.all([wall(t), wall(t), wall(t)]);
      const answers = await Promise.all(walls.map((w) => put(t, w.id, ['0xRACE', `0xOWN-${w.id}`])));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      for (const r of answers.filter((a) => a.status === 409)) expect(r.body.code).toBe('serial-attached-elsewhere');
      const counts = await Promise.all(walls.map(async (w) => (await slotsOf(t, w.id)).length));
      expect(counts.sort()).toEqual([0, 0, 2]);
    });

    it('keeps tenants apart: another client may attach the same serial number', async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      await put(t, (await wall(t)).id, ['0xSHARED']);
      const res = await put(other, (await wall(other)).id, ['0xSHARED']);
      expect(res.status).toBe(200);
    });

    it('answers 409 crc-collision for two serials with one crc within a request, attaching nothing', async () => {
      const t = await newTenant(api);
      const w = await wall(t);
      const res = await put(t, w.id, ['0x10', COLLIDING[0], COLLIDING[1]]);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('crc-collision');
      expect(res.body.detail).toContain(COLLIDING_CRC);
      expect(res.body.errors).toEqual([{ path: 'serialNumbers[2]', message: expect.stringContaining(`'${COLLIDING[0]}'`) }]);
      expect(await slotsOf(t, w.id)).toEqual([]);
    });

    it('answers 409 crc-collision against a slot already on any wall of the client', async () => {
      const t = await newTenant(api);
      const a = await wall(t, 'First');
      const b = await wall(t, 'Second');
      const attached = await put(t, a.id, [COLLIDING[0]]);
      expect(attached.body[0].crc).toBe(COLLIDING_CRC);
      for (const target of [a, b]) {
        const res = await put(t, target.id, ['0x77', COLLIDING[1]]);
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('crc-collision');
        expect(res.body.errors).toEqual([{ path: 'serialNumbers[1]', message: expect.stringContaining("'First'") }]);
      }
      expect(await slotsOf(t, b.id)).toEqual([]);
      expect(await slotsOf(t, a.id)).toHaveLength(1);
    });

    it("answers 404 for another client's wall, 403 to a Sorter, 401 without a token", async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const theirs = await wall(other);
      const res = await put(t, theirs.id, ['0x99']);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not-found');
      expect(await slotsOf(other, theirs.id)).toEqual([]);

      const mine = await wall(t);
      const sorter = await employee(t, ['Sorter']);
      const forbidden = await put(sorter, mine.id, ['0x99']);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.code).toBe('forbidden');
      expect((await request(api.app).put(`/api/v1/walls/${mine.id}/sort-boxes`).send(['0x99'])).status).toBe(401);
      expect(await slotsOf(t, mine.id)).toEqual([]);
    });

    it.each([
      ['an empty list', { serialNumbers: [] }, 'serialNumbers'],
      ['an empty bare array', [], 'serialNumbers'],
      ['1001 serials', { serialNumbers: Array.from({ length: 1001 }, (_, i) => `s-${i}`) }, 'serialNumbers'],
      ['a blank serial', ['0x1', '   '], 'serialNumbers[1]'],
      ['a 129-character serial', { serialNumbers: ['x'.repeat(129)] }, 'serialNumbers[0]'],
      ['a number', { serialNumbers: ['0x1', 42] }, 'serialNumbers[1]'],
      ['no serialNumbers', {}, 'body'],
    ])('answers 400 validation-failed for %s', async (_what, body, path) => {
      const t = await newTenant(api);
      const w = await wall(t);
      const res = await put(t, w.id, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      expect(await slotsOf(t, w.id)).toEqual([]);
    });

    it('accepts exactly 1000 serials', async () => {
      const t = await newTenant(api);
      const w = await wall(t);
      const serials = Array.from({ length: 1000 }, (_, i) => `bulk-${i}`);
      const res = await put(t, w.id, serials);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1000);
      expect(res.body[999]).toMatchObject({ serialNumber: 'bulk-999', position: 1000 });
    });
  });

  describe('DELETE /walls/{id}/sort-boxes/{crc}', () => {
    it('detaches an Empty slot, answers it, keeps the other positions and frees the serial number', async () => {
      const t = await newTenant(api);
      const a = await wall(t);
      const b = await wall(t);
      const attached = (await put(t, a.id, ['0xD1', '0xD2', '0xD3'])).body;
      const res = await del(t, a.id, attached[1].crc);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(attached[1]);
      expect((await slotsOf(t, a.id)).map((s) => s.position)).toEqual([1, 3]);
      expect(await wallEvents(t, a.id)).toBe(2);
      const events = await em().find(OutboxEvent, { clientId: t.clientId, wallId: a.id, type: 'wall.updated' }, { orderBy: { id: 'asc' } });
      expect(events[1]!.data).toEqual({ wall: expect.objectContaining({ id: a.id }), change: 'sort-box-detached', sortBoxes: [attached[1]] });

      const moved = await put(t, b.id, ['0xD2']);
      expect(moved.status).toBe(200);
      expect(moved.body[0]).toMatchObject({ wallId: b.id, crc: attached[1].crc, position: 1 });
      // A new slot on wall a goes after the highest position, not into the gap.
      expect((await put(t, a.id, ['0xD4'])).body[0].position).toBe(4);
    });

    it('accepts the crc in any case and the A- and B- barcodes', async () => {
      const t = await newTenant(api);
      const w = await wall(t);
      const attached = (await put(t, w.id, ['0xE1', '0xE2', '0xE3'])).body;
      for (const [i, code] of [
        [0, attached[0].crc.toLowerCase()],
        [1, `a-${attached[1].crc}`],
        [2, `B-${attached[2].crc.toLowerCase()}`],
      ] as const) {
        const res = await del(t, w.id, code);
        expect(res.status).toBe(200);
        expect(res.body.id).toBe(attached[i].id);
      }
      expect(await slotsOf(t, w.id)).toEqual([]);
    });

    it("answers 404 for an unknown crc, a slot of another wall and another client's wall; 400 for a malformed crc", async () => {
      const t = await newTenant(api);
      const a = await wall(t);
      const b = await wall(t);
      const [slot] = (await put(t, a.id, ['0xF1'])).body;
      for (const [wallId, crc] of [
        [a.id, '00000000'],
        [b.id, slot.crc],
      ]) {
        const res = await del(t, wallId, crc);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('not-found');
      }
      const other = await newTenant(api);
      const foreign = await del(other, a.id, slot.crc);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('not-found');

      for (const crc of ['XYZ', '1234567', 'C-00000000']) {
        const bad = await del(t, a.id, crc);
        expect(bad.status).toBe(400);
        expect(bad.body.code).toBe('validation-failed');
        expect(bad.body.errors[0].path).toBe('crc');
      }
      const sorter = await employee(t, ['Sorter']);
      expect((await del(sorter, a.id, slot.crc)).status).toBe(403);
      expect(await slotsOf(t, a.id)).toHaveLength(1);
    });

    it('answers 409 slot-not-empty for a slot holding an order', async () => {
      const t = await newTenant(api);
      await addWarehouse(em(), t.clientId, { id: 1 });
      await addOrders(em(), t.clientId, [{ id: 7001, warehouseId: 1, items: [{ sku: 'SKU-1', qty: 2 }] }]);
      const w = await wall(t, 'Jackson St');
      const [slot] = (await put(t, w.id, ['0xC1'])).body;
      await putOrderInSlot(em(), { ...slot, clientId: t.clientId }, 7001);
      const res = await del(t, w.id, slot.crc);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('slot-not-empty');
      expect(res.body.detail).toContain('7001');
      expect(await slotsOf(t, w.id)).toHaveLength(1);
      expect(await wallEvents(t, w.id)).toBe(1);
    });

    it('answers 409 slot-not-empty for an Empty slot that still has a scan awaiting confirmation', async () => {
      const t = await newTenant(api);
      await addWarehouse(em(), t.clientId, { id: 1 });
      const [product] = await addProducts(em(), t.clientId, [{ sku: 'SKU-9' }]);
      const [created] = await addOrders(em(), t.clientId, [{ id: 8001, warehouseId: 1, items: [{ sku: 'SKU-9', qty: 1, pendingQty: 1 }] }]);
      const w = await addWall(em(), t.clientId, { warehouseId: 1 });
      const [slot] = await addSlots(em(), t.clientId, w.id, 1);
      const fork = em();
      const session = fork.create(SorterSession, {
        token: randomUUID(),
        clientId: t.clientId,
        wallId: w.id,
        userId: t.adminId,
        picklistId: null,
        color: 'Red',
        status: 'Connected',
        startedAt: new Date(),
        lastActivityAt: new Date(),
        expiresAt: new Date(Date.now() + 3600_000),
      });
      await fork.flush();
      fork.create(SortBoxItem, {
        clientId: t.clientId,
        wallId: w.id,
        sortBoxId: slot!.id,
        crc: slot!.crc,
        orderId: 8001,
        orderItemId: created!.items[0]!.id,
        productId: product!.id,
        sku: 'SKU-9',
        barcode: 'SKU-9',
        barcodeInputMethod: 'Scanned',
        userId: t.adminId,
        sessionId: session.id,
        color: 'Red',
        units: 1,
        confirmedUnits: 0,
        status: 'PendingConfirmation',
        createdAt: new Date(),
      });
      await fork.flush();

      const res = await del(t, w.id, slot!.crc);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('slot-not-empty');
      expect(res.body.detail).toMatch(/waiting for confirmation/);
      expect(await slotsOf(t, w.id)).toHaveLength(1);
    });
  });
});
