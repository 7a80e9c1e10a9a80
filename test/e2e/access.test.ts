import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../services/api/app';
import { EmployeeAccess } from '../../services/api/http/employee-access';
import { newTenant, signIn, startTestApi, uniqueSuffix, useTestApi, waitFor, type Tenant, type TestApi } from '../support/test-api';

/*
 * Access ends when it should. Deactivation, role and password changes reach tokens
 * already issued on the next request: at once in the API process that made the change, within 5 s
 * in every other one (docs/api.md §2). Tokens without an expiry are refused. The sign-in throttle
 * counts per user name and per address, and X-Forwarded-For only counts behind a trusted proxy.
 */

jest.setTimeout(60_000);
const BOUND_MS = 5_000;

describe('existing tokens follow the employee', () => {
  const api = useTestApi();
  // A second API process: the same database, its own access cache.
  let other: Express;
  let tenant: Tenant;
  beforeAll(async () => {
    other = createApp({ ...api.deps, access: new EmployeeAccess(api.runtime.orm) });
    tenant = await newTenant(api);
  });

  async function employee(roles: string[]): Promise<{ id: number; email: string; password: string; auth: string }> {
    const email = `e-${uniqueSuffix()}@example.com`;
    const password = `pw-${uniqueSuffix()}-long`;
    const res = await request(api.app).post('/api/v1/admin/employees').set('Authorization', tenant.auth).send({ email, firstName: 'E', lastName: 'Mployee', password, roles });
    expect(res.status).toBe(200);
    return { id: res.body.id, email, password, auth: `Bearer ${await signIn(api.app, email, password)}` };
  }
  const patch = (id: number, body: object) => request(api.app).patch(`/api/v1/admin/employees/${id}`).set('Authorization', tenant.auth).send(body);

  /** The status `path` answers on `app` once it is `status`, and how long that took. */
  async function until(app: Express, path: string, auth: string, status: number): Promise<number> {
    const t0 = Date.now();
    await waitFor(async () => (await request(app).get(path).set('Authorization', auth)).status === status, {
      timeoutMs: BOUND_MS + 1_000,
      intervalMs: 100,
      what: `${path} to answer ${status}`,
    });
    return Date.now() - t0;
  }

  it('a deactivated employee gets 401 on the next request (here at once, in another process within 5 s)', async () => {
    const e = await employee(['Sorter']);
    expect((await request(other).get('/api/v1/employees/me').set('Authorization', e.auth)).status).toBe(200); // cached there now
    expect((await patch(e.id, { isActive: false })).status).toBe(200);
    const here = await request(api.app).get('/api/v1/employees/me').set('Authorization', e.auth);
    expect({ status: here.status, code: here.body.code }).toEqual({ status: 401, code: 'unauthorized' });
    expect(here.body.detail).toMatch(/deactivated/);
    expect(await until(other, '/api/v1/employees/me', e.auth, 401)).toBeLessThanOrEqual(BOUND_MS);
    // Reactivating does not bring the old token back.
    expect((await patch(e.id, { isActive: true })).status).toBe(200);
    expect((await request(api.app).get('/api/v1/employees/me').set('Authorization', e.auth)).status).toBe(401);
    expect((await request(api.app).post('/token').send({ username: e.email, password: e.password })).status).toBe(200);
  });

  it("a demoted Admin's token gets 403 on Admin operations", async () => {
    const admin = await employee(['Admin']);
    expect((await request(api.app).get('/api/v1/admin/webhooks').set('Authorization', admin.auth)).status).toBe(200);
    expect((await request(other).get('/api/v1/admin/webhooks').set('Authorization', admin.auth)).status).toBe(200);
    expect((await patch(admin.id, { roles: ['Sorter'] })).status).toBe(200);
    const here = await request(api.app).get('/api/v1/admin/webhooks').set('Authorization', admin.auth);
    expect({ status: here.status, code: here.body.code }).toEqual({ status: 403, code: 'forbidden' });
    expect(await until(other, '/api/v1/admin/webhooks', admin.auth, 403)).toBeLessThanOrEqual(BOUND_MS);
    // What a Sorter may do still works with the same token.
    expect((await request(api.app).get('/api/v1/employees/me').set('Authorization', admin.auth)).status).toBe(200);
  });

  it('a password change ends the tokens issued before it; a new sign-in works', async () => {
    const e = await employee(['Manager']);
    expect((await request(other).get('/api/v1/walls').set('Authorization', e.auth)).status).toBe(200);
    const password = `new-${uniqueSuffix()}-password`;
    expect((await patch(e.id, { password })).status).toBe(200);
    const here = await request(api.app).get('/api/v1/walls').set('Authorization', e.auth);
    expect({ status: here.status, code: here.body.code }).toEqual({ status: 401, code: 'unauthorized' });
    expect(await until(other, '/api/v1/walls', e.auth, 401)).toBeLessThanOrEqual(BOUND_MS);
    const fresh = await signIn(api.app, e.email, password);
    expect((await request(api.app).get('/api/v1/walls').set('Authorization', `Bearer ${fresh}`)).status).toBe(200);
  });

  it('refuses a genuine token without an expiry (401)', async () => {
    const me = await request(api.app).get('/api/v1/employees/me').set('Authorization', tenant.auth);
    expect(me.status).toBe(200);
    const forever = jwt.sign({ sub: String(me.body.id), cid: tenant.clientId, roles: ['Admin'], email: tenant.adminEmail, ver: 0 }, api.deps.config.JWT_SECRET, {
      algorithm: 'HS256',
      issuer: 'sorting-wall',
    });
    expect(jwt.decode(forever)).not.toHaveProperty('exp');
    const res = await request(api.app).get('/api/v1/employees/me').set('Authorization', `Bearer ${forever}`);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 401, code: 'unauthorized' });
  });
});

describe("one API process's cache of the employees' standing", () => {
  const api = useTestApi();

  it('a miss reads again the entries past half their lifetime with it (they line up), never one younger, and an unknown id is none', async () => {
    const tenant = await newTenant(api);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(api.app).post('/api/v1/admin/employees').set('Authorization', tenant.auth)
        .send({ email: `c-${uniqueSuffix()}@example.com`, firstName: 'C', lastName: 'Ache', password: `pw-${uniqueSuffix()}-long`, roles: ['Sorter'] });
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    const [a, b, c] = ids as [number, number, number];
    let now = 0;
    // A lifetime no test outlasts: what the entries do here is the line-up's, on this clock.
    const access = new EmployeeAccess(api.runtime.orm, 600_000, () => now);
    const deactivate = (id: number) => api.runtime.orm.em.fork().getConnection().execute('update employee set is_active = false where id = ?', [id]);

    expect((await access.current(a))?.isActive).toBe(true);
    now = 100_000; // a's entry at a sixth of its lifetime
    await deactivate(a);
    expect((await access.current(b))?.isActive).toBe(true);
    expect((await access.current(a))?.isActive).toBe(true); // not read again: still what it was

    now = 350_000; // a's entry past half its lifetime, b's not
    await deactivate(b);
    expect((await access.current(c))?.isActive).toBe(true);
    expect((await access.current(a))?.isActive).toBe(false); // read again with c's miss
    expect((await access.current(b))?.isActive).toBe(true);

    // Long after (every entry past its lifetime, a's gone): a's miss reads c's again with it.
    now = 1_000_000;
    await deactivate(c);
    access.forget(a); // as when its entry ran out
    expect((await access.current(a))?.isActive).toBe(false);
    expect((await access.current(c))?.isActive).toBe(false); // read again with a's miss, though its entry was still there

    expect(await access.current(2_000_000_000)).toBeNull();
    access.forget(b);
    expect((await access.current(b))?.isActive).toBe(false);
  });

  it('a hit past half its lifetime answers from the entry and reads it again behind it, never one younger', async () => {
    const tenant = await newTenant(api);
    const res = await request(api.app).post('/api/v1/admin/employees').set('Authorization', tenant.auth)
      .send({ email: `r-${uniqueSuffix()}@example.com`, firstName: 'R', lastName: 'Ahead', password: `pw-${uniqueSuffix()}-long`, roles: ['Sorter'] });
    expect(res.status).toBe(200);
    const id = res.body.id as number;
    let now = 0;
    const access = new EmployeeAccess(api.runtime.orm, 600_000, () => now);
    expect((await access.current(id))?.isActive).toBe(true);
    await api.runtime.orm.em.fork().getConnection().execute('update employee set is_active = false where id = ?', [id]);

    now = 250_000; // under half its lifetime: answered from the entry, not read again
    expect((await access.current(id))?.isActive).toBe(true);
    now = 350_000; // past half: still answered from the entry at once, and read again behind it
    expect((await access.current(id))?.isActive).toBe(true);
    // The clock stands still, the entry has most of its lifetime left: only the read behind it can bring the change.
    await waitFor(async () => (await access.current(id))?.isActive === false, { timeoutMs: 5_000, what: 'the read behind the hit to land' });
  });
});

describe('the sign-in throttle', () => {
  const apis: TestApi[] = [];
  afterAll(() => Promise.all(apis.map((a) => a.close())));
  // Each API counts in its own Redis keys: one test's blocked address must not block the next.
  const start = async (env: Record<string, string>) => {
    const a = await startTestApi({ env: { QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-throttle-${apis.length}`, ...env } });
    apis.push(a);
    return a;
  };
  let n = 0;
  const ip = () => `203.0.113.${++n % 250}`;

  it('without TRUST_PROXY, a new X-Forwarded-For per try neither bypasses the limit per user name nor the one per address', async () => {
    const api = await start({ TOKEN_RATE_LIMIT: '3', TOKEN_RATE_LIMIT_PER_ADDRESS: '6' });
    const t = await newTenant(api);
    for (let i = 0; i < 3; i++) {
      expect((await request(api.app).post('/token').set('X-Forwarded-For', ip()).send({ username: t.adminEmail, password: 'wrong' })).status).toBe(401);
    }
    const blocked = await request(api.app).post('/token').set('X-Forwarded-For', ip()).send({ username: t.adminEmail, password: t.password });
    expect({ status: blocked.status, code: blocked.body.code }).toEqual({ status: 429, code: 'rate-limited' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);

    // Other user names from the same (real) address: 3 more failures reach the address's limit of 6.
    for (let i = 0; i < 3; i++) {
      expect((await request(api.app).post('/token').set('X-Forwarded-For', ip()).send({ username: `nobody-${i}@example.com`, password: 'x' })).status).toBe(401);
    }
    const byAddress = await request(api.app).post('/token').set('X-Forwarded-For', ip()).send({ username: 'someone-else@example.com', password: 'x' });
    expect({ status: byAddress.status, code: byAddress.body.code }).toEqual({ status: 429, code: 'rate-limited' });
    expect(byAddress.body.detail).toMatch(/from your address/);
  });

  it('with TRUST_PROXY naming the proxy, the forwarded address is the one counted; the user name limit still holds', async () => {
    const api = await start({ TOKEN_RATE_LIMIT: '3', TOKEN_RATE_LIMIT_PER_ADDRESS: '2', TRUST_PROXY: 'loopback' });
    const t = await newTenant(api);
    const client = '198.51.100.7';
    for (let i = 0; i < 2; i++) {
      expect((await request(api.app).post('/token').set('X-Forwarded-For', client).send({ username: `guess-${i}@example.com`, password: 'x' })).status).toBe(401);
    }
    expect((await request(api.app).post('/token').set('X-Forwarded-For', client).send({ username: 'guess-3@example.com', password: 'x' })).status).toBe(429);
    // Another client behind the same proxy is not blocked by it.
    expect((await request(api.app).post('/token').set('X-Forwarded-For', '198.51.100.8').send({ username: t.adminEmail, password: t.password })).status).toBe(200);
    // Rotating forwarded addresses does not get around the limit per user name.
    for (let i = 0; i < 3; i++) {
      expect((await request(api.app).post('/token').set('X-Forwarded-For', ip()).send({ username: t.adminEmail, password: 'wrong' })).status).toBe(401);
    }
    expect((await request(api.app).post('/token').set('X-Forwarded-For', ip()).send({ username: t.adminEmail, password: t.password })).status).toBe(429);
  });

  it('refuses a TRUST_PROXY that is not a list of addresses, CIDRs or proxy names', async () => {
    await expect(start({ TRUST_PROXY: 'everyone' })).rejects.toThrow(/TRUST_PROXY/);
  });
});
