import bcrypt from 'bcryptjs';
import request from 'supertest';
import { ClientSettings, OrderItem, SortBoxItem, SorterSession, type Role } from '../../shared/db/entities';
import type { SortBoxItemStatus } from '../../shared/domain/statuses';
import { verifySecret } from '../../shared/auth/password';
import { AppError } from '../../shared/errors/app-error';
import { assertPin } from '../../services/api/use-cases/security/assert-pin.use-case';
import { addOrders, addProducts, addSlots, addWall, addWarehouse, putOrderInSlot } from '../support/fixtures';
import { newTenant, signedInEmployee, uniqueSuffix, useTestApi, type Tenant } from '../support/test-api';

describe('PIN, subscription and usage', () => {
  const api = useTestApi();

  const em = () => api.runtime.orm.em.fork();

  const employee = (t: Tenant, roles: Role[] = ['Sorter']) => signedInEmployee(api, t, { roles, firstName: 'E', lastName: 'E' });

  const setPin = (t: Tenant, body: unknown) =>
    request(api.app).put('/api/v1/admin/security/pin').set('Authorization', t.auth).send(body as object);
  const pinLength = (auth: string) => request(api.app).get('/api/v1/security/pin/length').set('Authorization', auth);
  const validate = (auth: string, pin: string) =>
    request(api.app).post('/api/v1/security/pin/validate').query({ pin }).set('Authorization', auth);

  describe('PUT /admin/security/pin and GET /security/pin/length', () => {
    it('stores only a hash and the length; null removes the PIN', async () => {
      const t = await newTenant(api);
      const sorter = await employee(t);
      const none = await pinLength(sorter.auth);
      expect(none.status).toBe(200);
      expect(none.body).toBe(0);

      const res = await setPin(t, { pin: 'A1b2C3', enforcement: 'server' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ pinLength: 6, enforcement: 'server' });
      const stored = await em().findOneOrFail(ClientSettings, { clientId: t.clientId });
      expect(stored.pinHash).not.toContain('A1b2C3');
      expect(await verifySecret('A1b2C3', stored.pinHash!)).toBe(true);
      expect(stored).toMatchObject({ pinLength: 6, pinEnforcement: 'server' });
      expect((await pinLength(sorter.auth)).body).toBe(6);

      const cleared = await setPin(t, { pin: null, enforcement: 'client' });
      expect(cleared.body).toEqual({ pinLength: 0, enforcement: 'client' });
      expect((await pinLength(sorter.auth)).body).toBe(0);
      expect((await em().findOneOrFail(ClientSettings, { clientId: t.clientId })).pinHash).toBeNull();
    });

    it('answers 400 for a PIN that is not 4..12 letters or digits, or a bad enforcement', async () => {
      const t = await newTenant(api);
      for (const body of [{ pin: '123', enforcement: 'client' }, { pin: '1234567890123', enforcement: 'client' }, { pin: '12-34', enforcement: 'client' }, { pin: '1234', enforcement: 'both' }, { enforcement: 'client' }]) {
        const res = await setPin(t, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation-failed');
      }
      expect((await em().findOneOrFail(ClientSettings, { clientId: t.clientId })).pinLength).toBe(0);
    });

    it('is for Admins only; the length is per company', async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const manager = await employee(t, ['Manager']);
      const res = await request(api.app).put('/api/v1/admin/security/pin').set('Authorization', manager.auth).send({ pin: '1234', enforcement: 'client' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
      await setPin(t, { pin: '12345', enforcement: 'client' });
      expect((await pinLength(other.auth)).body).toBe(0);
      expect((await request(api.app).get('/api/v1/security/pin/length')).status).toBe(401);
    });
  });

  describe('GET /admin/security/pin', () => {
    it("answers the PIN's length and enforcement as they stand, never the PIN; Admins only, per company", async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const read = (auth: string) => request(api.app).get('/api/v1/admin/security/pin').set('Authorization', auth);
      expect((await read(t.auth)).body).toEqual({ pinLength: 0, enforcement: 'client' });
      await setPin(t, { pin: 'A1b2C3', enforcement: 'server' });
      const res = await read(t.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ pinLength: 6, enforcement: 'server' });
      expect(res.text).not.toContain('A1b2C3');
      expect((await read(other.auth)).body).toEqual({ pinLength: 0, enforcement: 'client' });
      const manager = await employee(t, ['Manager']);
      expect((await read(manager.auth)).status).toBe(403);
    });
  });

  describe('POST /security/pin/validate', () => {
    it('answers { valid } for right and wrong PINs (case-sensitive); every PIN is valid when none is set', async () => {
      const t = await newTenant(api);
      const sorter = await employee(t);
      expect((await validate(sorter.auth, 'anything')).body).toEqual({ valid: true });
      await setPin(t, { pin: 'Ab12', enforcement: 'client' });
      const ok = await validate(sorter.auth, 'Ab12');
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ valid: true });
      expect((await validate(sorter.auth, 'ab12')).body).toEqual({ valid: false });
      expect((await validate(sorter.auth, '9999')).body).toEqual({ valid: false });
      const missing = await request(api.app).post('/api/v1/security/pin/validate').set('Authorization', sorter.auth);
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].path).toBe('pin');
    });

    it('replaces a bcrypt PIN hash from before at the next right PIN', async () => {
      const t = await newTenant(api);
      const sorter = await employee(t);
      await setPin(t, { pin: '8642', enforcement: 'client' });
      const legacy = await bcrypt.hash('8642', 4);
      await em().nativeUpdate(ClientSettings, { clientId: t.clientId }, { pinHash: legacy });
      expect((await validate(sorter.auth, '0000')).body).toEqual({ valid: false });
      expect((await em().findOneOrFail(ClientSettings, { clientId: t.clientId })).pinHash).toBe(legacy);
      expect((await validate(sorter.auth, '8642')).body).toEqual({ valid: true });
      const stored = (await em().findOneOrFail(ClientSettings, { clientId: t.clientId })).pinHash!;
      expect(stored).toMatch(/^scrypt\$/);
      expect(await verifySecret('8642', stored)).toBe(true);
    });

    it('after 5 failures in 5 minutes answers 429 with Retry-After, even for the right PIN; other employees are not blocked', async () => {
      const t = await newTenant(api);
      const sorter = await employee(t);
      const colleague = await employee(t);
      await setPin(t, { pin: '2468', enforcement: 'client' });
      for (let i = 0; i < 5; i++) {
        const r = await validate(sorter.auth, `000${i}`);
        expect(r.status).toBe(200);
        expect(r.body).toEqual({ valid: false });
      }
      const blocked = await validate(sorter.auth, '2468');
      expect(blocked.status).toBe(429);
      expect(blocked.body.code).toBe('rate-limited');
      const retryAfter = Number(blocked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(300);
      expect((await validate(colleague.auth, '2468')).body).toEqual({ valid: true });
    });

    it('a right PIN clears the count of earlier failures', async () => {
      const t = await newTenant(api);
      const sorter = await employee(t);
      await setPin(t, { pin: '1357', enforcement: 'client' });
      for (let i = 0; i < 4; i++) expect((await validate(sorter.auth, 'bad1')).body.valid).toBe(false);
      expect((await validate(sorter.auth, '1357')).body.valid).toBe(true);
      for (let i = 0; i < 4; i++) expect((await validate(sorter.auth, 'bad1')).status).toBe(200);
      expect((await validate(sorter.auth, '1357')).status).toBe(200);
    });
  });

  describe('assertPin (server-side enforcement, used by cancel)', () => {
    const expectCode = async (p: Promise<unknown>, code: string) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe(code);
      return err as AppError;
    };

    it('checks nothing with client enforcement or without a PIN', async () => {
      const t = await newTenant(api);
      const caller = { clientId: t.clientId, employeeId: t.adminId };
      await expect(assertPin(em(), api.deps, caller, undefined)).resolves.toBeUndefined();
      await setPin(t, { pin: '4321', enforcement: 'client' });
      await expect(assertPin(em(), api.deps, caller, undefined)).resolves.toBeUndefined();
      await expect(assertPin(em(), api.deps, caller, 'wrong')).resolves.toBeUndefined();
      await setPin(t, { pin: null, enforcement: 'server' });
      await expect(assertPin(em(), api.deps, caller, undefined)).resolves.toBeUndefined();
    });

    it('with server enforcement: missing → pin-required, wrong → pin-invalid (counted), right → passes; 5 wrong → rate-limited', async () => {
      const t = await newTenant(api);
      const caller = { clientId: t.clientId, employeeId: t.adminId };
      await setPin(t, { pin: '4321', enforcement: 'server' });
      const required = await expectCode(assertPin(em(), api.deps, caller, undefined), 'pin-required');
      expect(required.status).toBe(403);
      const invalid = await expectCode(assertPin(em(), api.deps, caller, '1111'), 'pin-invalid');
      expect(invalid.status).toBe(403);
      await expect(assertPin(em(), api.deps, caller, '4321')).resolves.toBeUndefined();
      for (let i = 0; i < 5; i++) await expectCode(assertPin(em(), api.deps, caller, '0000'), 'pin-invalid');
      const limited = await expectCode(assertPin(em(), api.deps, caller, '4321'), 'rate-limited');
      expect(limited.headers?.['Retry-After']).toBeDefined();
      // The same counter as POST /security/pin/validate.
      const admin = await validate(t.auth, '4321');
      expect(admin.status).toBe(429);
    });
  });

  describe('sorting subscription', () => {
    it('GET /subscriptions/sorting answers true by default and follows PUT /admin/subscriptions/sorting', async () => {
      const t = await newTenant(api);
      const sorter = await employee(t);
      const get = () => request(api.app).get('/api/v1/subscriptions/sorting').set('Authorization', sorter.auth);
      const initial = await get();
      expect(initial.status).toBe(200);
      expect(initial.headers['content-type']).toMatch(/application\/json/);
      expect(initial.text).toBe('true');

      const off = await request(api.app).put('/api/v1/admin/subscriptions/sorting').set('Authorization', t.auth).send({ enabled: false });
      expect(off.status).toBe(200);
      expect(off.body).toEqual({ enabled: false });
      expect((await get()).text).toBe('false');
      expect((await em().findOneOrFail(ClientSettings, { clientId: t.clientId })).sortingEnabled).toBe(false);

      const on = await request(api.app).put('/api/v1/admin/subscriptions/sorting').set('Authorization', t.auth).send({ enabled: true });
      expect(on.body).toEqual({ enabled: true });
      expect((await get()).body).toBe(true);
    });

    it('PUT is for Admins only and needs a boolean; GET needs a token', async () => {
      const t = await newTenant(api);
      const sorter = await employee(t);
      const forbidden = await request(api.app).put('/api/v1/admin/subscriptions/sorting').set('Authorization', sorter.auth).send({ enabled: false });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.code).toBe('forbidden');
      const bad = await request(api.app).put('/api/v1/admin/subscriptions/sorting').set('Authorization', t.auth).send({ enabled: 'no' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('enabled');
      expect((await request(api.app).get('/api/v1/subscriptions/sorting')).status).toBe(401);
      expect((await em().findOneOrFail(ClientSettings, { clientId: t.clientId })).sortingEnabled).toBe(true);
    });
  });

  describe('GET /admin/subscriptions/sorting/usage', () => {
    /** A wall with `slots` slots, one order per slot, and a sort_box_item per entry of `items`. */
    async function usageFloor(t: Tenant, items: { slot: number; status: SortBoxItemStatus; confirmedAt?: string }[], slots = 4) {
      const e = em();
      const wh = await addWarehouse(e, t.clientId, { id: 1 });
      const [product] = await addProducts(e, t.clientId, [{ sku: 'U-1' }]);
      const orders = await addOrders(
        e,
        t.clientId,
        Array.from({ length: slots }, (_, i) => ({ id: i + 1, warehouseId: wh.id, items: [{ sku: 'U-1', qty: 10 }] })),
      );
      const wall = await addWall(e, t.clientId, { warehouseId: wh.id });
      const boxes = await addSlots(e, t.clientId, wall.id, slots);
      for (let i = 0; i < slots; i++) await putOrderInSlot(e, boxes[i], i + 1);
      const session = e.create(SorterSession, {
        clientId: t.clientId, wallId: wall.id, userId: t.adminId, token: `tok-${uniqueSuffix()}`, color: 'Red', status: 'Connected',
        startedAt: new Date(), lastActivityAt: new Date(), expiresAt: new Date(Date.now() + 3600_000),
      });
      await e.flush();
      for (const it of items) {
        const line = orders[it.slot].items[0];
        e.create(SortBoxItem, {
          clientId: t.clientId, wallId: wall.id, sortBoxId: boxes[it.slot].id, crc: boxes[it.slot].crc, orderId: it.slot + 1, orderItemId: line.id,
          productId: product.id, sku: 'U-1', barcode: 'U-1', barcodeInputMethod: 'Scanned', userId: t.adminId, sessionId: session.id,
          color: 'Red', units: 1, confirmedUnits: it.status === 'Confirmed' ? 1 : 0, status: it.status, createdAt: new Date(),
          confirmedAt: it.confirmedAt ? new Date(it.confirmedAt) : null,
          cancelledAt: it.status === 'Cancelled' ? new Date() : null,
        });
      }
      await e.flush();
      expect(await e.count(OrderItem, { clientId: t.clientId })).toBe(slots);
    }

    const usage = (t: Tenant, month?: string) =>
      request(api.app).get('/api/v1/admin/subscriptions/sorting/usage').query(month ? { month } : {}).set('Authorization', t.auth);

    it('counts distinct slots with a confirmed unit in the UTC month, for this company only', async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      await usageFloor(t, [
        { slot: 0, status: 'Confirmed', confirmedAt: '2026-05-01T00:00:00Z' }, // first instant of May
        { slot: 0, status: 'Confirmed', confirmedAt: '2026-05-20T12:00:00Z' }, // same slot again
        { slot: 1, status: 'Confirmed', confirmedAt: '2026-05-31T23:59:59.999Z' }, // last instant of May
        { slot: 2, status: 'Confirmed', confirmedAt: '2026-04-30T23:59:59Z' }, // April
        { slot: 2, status: 'PendingConfirmation' },
        { slot: 3, status: 'Cancelled' },
        { slot: 3, status: 'Confirmed', confirmedAt: '2026-06-01T00:00:00Z' }, // June
      ]);
      await usageFloor(other, [
        { slot: 0, status: 'Confirmed', confirmedAt: '2026-05-10T00:00:00Z' },
        { slot: 1, status: 'Confirmed', confirmedAt: '2026-05-10T00:00:00Z' },
        { slot: 2, status: 'Confirmed', confirmedAt: '2026-05-10T00:00:00Z' },
      ]);
      const may = await usage(t, '2026-05');
      expect(may.status).toBe(200);
      expect(may.body).toEqual({ month: '2026-05', slotsUsed: 2 });
      expect((await usage(t, '2026-04')).body).toEqual({ month: '2026-04', slotsUsed: 1 });
      expect((await usage(t, '2026-06')).body).toEqual({ month: '2026-06', slotsUsed: 1 });
      expect((await usage(t, '2026-07')).body).toEqual({ month: '2026-07', slotsUsed: 0 });
      expect((await usage(other, '2026-05')).body.slotsUsed).toBe(3);
    });

    it('defaults to the current month; 400 for a malformed month; Admins only', async () => {
      const t = await newTenant(api);
      const current = await usage(t);
      expect(current.status).toBe(200);
      expect(current.body).toEqual({ month: new Date().toISOString().slice(0, 7), slotsUsed: 0 });
      for (const month of ['2026-13', '2026-5', 'May 2026']) {
        const bad = await usage(t, month);
        expect(bad.status).toBe(400);
        expect(bad.body.code).toBe('validation-failed');
        expect(bad.body.errors[0].path).toBe('month');
      }
      const manager = await employee(t, ['Manager']);
      const res = await request(api.app).get('/api/v1/admin/subscriptions/sorting/usage').set('Authorization', manager.auth);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    });
  });
});
