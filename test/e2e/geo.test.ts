import request from 'supertest';
import { Wall } from '../../shared/db/entities';
import { addWarehouse } from '../support/fixtures';
import { newTenant, useTestApi, type Tenant } from '../support/test-api';

describe('geo lookups', () => {
  const api = useTestApi();
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant(api);
  });

  const get = (path: string) => request(api.app).get(`/api/v1/geo${path}`).set('Authorization', t.auth);
  const nulls = { country: null, region: null, city: null, latitude: null, longitude: null, timezone: null };

  it('locates a public address from the shipped GeoLite data', async () => {
    const res = await get('/by-ip?ip=81.2.69.142');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ip: '81.2.69.142',
      country: 'GB',
      region: expect.any(String),
      city: expect.any(String),
      latitude: expect.any(Number),
      longitude: expect.any(Number),
      timezone: 'Europe/London',
      source: 'ip',
    });
    expect(Math.abs(res.body.latitude - 52)).toBeLessThan(5);
    const v6 = await get(`/by-ip?ip=${encodeURIComponent('2001:4860:4860::8888')}`);
    expect(v6.status).toBe(200);
    expect(v6.body).toMatchObject({ ip: '2001:4860:4860::8888', country: 'US', source: 'ip' });
  });

  it('answers an address with no known location with its ip and null fields', async () => {
    for (const ip of ['10.1.2.3', '192.168.0.10', '127.0.0.1', '::1', 'fd00::1']) {
      const res = await get(`/by-ip?ip=${encodeURIComponent(ip)}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ip, ...nulls, source: 'ip' });
    }
    // An IPv4-mapped IPv6 address is the IPv4 address.
    const mapped = await get(`/by-ip?ip=${encodeURIComponent('::ffff:81.2.69.142')}`);
    expect(mapped.body).toMatchObject({ ip: '81.2.69.142', country: 'GB' });
  });

  it('refuses a missing or malformed address with 400', async () => {
    for (const q of ['', '?ip=', '?ip=999.1.1.1', '?ip=example.com', '?ip=1.2.3', `?ip=${encodeURIComponent('1.2.3.4\u0000')}`, '?ip=a&ip=b']) {
      const res = await get(`/by-ip${q}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
    }
  });

  it("locates the caller's own address (loopback here: null fields)", async () => {
    const res = await get('/by-ip/implicit');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ip: expect.stringMatching(/^(127\.0\.0\.1|::1)$/), ...nulls, source: 'ip' });
  });

  it("locates a wall by its warehouse's coordinates; 404 saying what to load otherwise", async () => {
    const em = api.runtime.orm.em.fork();
    const placed = await addWarehouse(em, t.clientId, { latitude: 41.8781, longitude: -87.6298 });
    const bare = await addWarehouse(em, t.clientId);
    const walls = [placed.id, bare.id, null].map((warehouseId, i) =>
      em.create(Wall, { clientId: t.clientId, name: `Geo wall ${i} ${Date.now()}`, warehouseId, createdAt: new Date(), updatedAt: new Date() }),
    );
    await em.flush();

    const ok = await get(`/by-wall-id?wallId=${walls[0]!.id}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ip: null, country: null, region: null, city: null, latitude: 41.8781, longitude: -87.6298, timezone: null, source: 'wall' });

    const noCoordinates = await get(`/by-wall-id?wallId=${walls[1]!.id}`);
    expect(noCoordinates.status).toBe(404);
    expect(noCoordinates.body.detail).toContain('PUT /admin/warehouses');
    const noWarehouse = await get(`/by-wall-id?wallId=${walls[2]!.id}`);
    expect(noWarehouse.status).toBe(404);
    expect(noWarehouse.body.detail).toContain('has no warehouse');

    const other = await newTenant(api);
    const foreign = await request(api.app).get(`/api/v1/geo/by-wall-id?wallId=${walls[0]!.id}`).set('Authorization', other.auth);
    expect(foreign.status).toBe(404);
    expect((await get('/by-wall-id')).status).toBe(400);
    expect((await get('/by-wall-id?wallId=x')).status).toBe(400);
  });
});
