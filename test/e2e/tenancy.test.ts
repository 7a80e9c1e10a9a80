import request from 'supertest';
import { newTenant, useTestApi, type Tenant } from '../support/test-api';

// The generic tenancy check; each resource's own test file covers its isolation in detail.
describe('tenancy: one client never sees another client’s rows', () => {
  const api = useTestApi();
  let a: Tenant;
  let b: Tenant;
  beforeAll(async () => {
    [a, b] = await Promise.all([newTenant(api, 'Alpha'), newTenant(api, 'Bravo')]);
  });

  it("answers another client's employee id with 404, exactly like an id that does not exist", async () => {
    const own = await request(api.app).get(`/api/v1/employees/${a.adminId}`).set('Authorization', a.auth);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: a.adminId, email: a.adminEmail });

    const foreign = await request(api.app).get(`/api/v1/employees/${a.adminId}`).set('Authorization', b.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(foreign.body.code).toBe('not-found');
    expect(JSON.stringify(foreign.body)).not.toContain(a.adminEmail);

    const missingId = 2147483000;
    const missing = await request(api.app).get(`/api/v1/employees/${missingId}`).set('Authorization', b.auth);
    expect(missing.status).toBe(404);
    // Same answer but for the id itself: nothing tells B that A's employee exists.
    const normalize = (body: Record<string, unknown>, id: number) =>
      Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v.replace(new RegExp(`\\b${id}\\b`, 'g'), '<id>') : v]));
    expect(normalize(foreign.body, a.adminId)).toEqual(normalize(missing.body, missingId));
  });

  it("answers another client's employee e-mail with 404", async () => {
    const own = await request(api.app).get(`/api/v1/employees/by-email/${encodeURIComponent(a.adminEmail)}`).set('Authorization', a.auth);
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(a.adminId);

    const foreign = await request(api.app).get(`/api/v1/employees/by-email/${encodeURIComponent(a.adminEmail)}`).set('Authorization', b.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not-found');
  });

  it('each token speaks for its own client: /employees/me', async () => {
    const [meA, meB] = await Promise.all([
      request(api.app).get('/api/v1/employees/me').set('Authorization', a.auth),
      request(api.app).get('/api/v1/employees/me').set('Authorization', b.auth),
    ]);
    expect(meA.body).toMatchObject({ id: a.adminId, email: a.adminEmail, roles: ['Admin'] });
    expect(meB.body).toMatchObject({ id: b.adminId, email: b.adminEmail, roles: ['Admin'] });
  });
});
