import { createHash } from 'node:crypto';
import request from 'supertest';
import { newTenant, uniqueSuffix, useTestApi, type Tenant } from '../support/test-api';

const APPS = [
  ['inventory-web-portal', 'inventory'],
  ['sorting-hub', 'sorting-hub'],
  ['sorting-sorter', 'sorting-sorter'],
  ['inventory-lens', 'inventory-lens'],
] as const;

describe('auto-login links', () => {
  const api = useTestApi();
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant(api);
  });

  const link = (app: string, query = '', team = t.team, auth = t.auth) =>
    request(api.app).get(`/api/v1/auto-login/${encodeURIComponent(team)}/${app}${query}`).set('Authorization', auth);
  const redeem = (token: unknown) => request(api.app).post('/api/v1/auto-login/redeem').send({ token });
  const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

  it.each(APPS)('builds a link into %s from its APP_URL setting with a token and the returnUrl', async (app, host) => {
    const res = await link(app, `?url=${encodeURIComponent('/walls/3?tab=slots')}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(typeof res.body).toBe('string');
    const url = new URL(res.body as string);
    expect(url.origin).toBe(`https://${t.team}.${host}.example.com`);
    expect(url.pathname).toBe('/auto-login');
    expect(url.searchParams.get('returnUrl')).toBe('/walls/3?tab=slots');
    expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('stores only the hash of the token, bound to the employee and client, for 60 s', async () => {
    const res = await link('sorting-hub');
    const token = tokenOf(res.body);
    expect(new URL(res.body).searchParams.get('returnUrl')).toBe('/');
    const rows: { hash: string; client_id: number; employee_id: number; app: string; ttl: string }[] = await api.runtime.orm.em.fork().getConnection().execute(
      `select encode(token_hash, 'hex') as hash, client_id, employee_id, app, extract(epoch from expires_at - created_at) as ttl
       from auto_login_token where client_id = ${t.clientId}`,
    );
    const row = rows.find((r) => r.hash === createHash('sha256').update(token).digest('hex'))!;
    expect(row).toMatchObject({ client_id: t.clientId, employee_id: t.adminId, app: 'sorting-hub' });
    expect(Number(row.ttl)).toBe(60);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('redeems a token once for a bearer token of the employee who asked for the link', async () => {
    const token = tokenOf((await link('sorting-sorter')).body);
    const first = await redeem(token);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: api.deps.config.JWT_TTL_SECONDS });
    const me = await request(api.app).get('/api/v1/employees/me').set('Authorization', `Bearer ${first.body.access_token}`);
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(t.adminId);
    const again = await redeem(token);
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('unauthorized');
  });

  it('lets exactly one of many simultaneous redeems of a token win', async () => {
    const token = tokenOf((await link('sorting-hub')).body);
    const results = await Promise.all(Array.from({ length: 8 }, () => redeem(token)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
  });

  it('refuses an expired, unknown or malformed token', async () => {
    const token = tokenOf((await link('sorting-hub')).body);
    const hash = createHash('sha256').update(token).digest('hex');
    await api.runtime.orm.em.fork().getConnection().execute(
      `update auto_login_token set expires_at = now() - interval '1 second' where token_hash = decode('${hash}', 'hex')`,
    );
    const expired = await redeem(token);
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toMatch(/expired/);
    expect((await redeem(`x${token}`)).status).toBe(401);
    expect((await redeem('')).status).toBe(400);
    expect((await redeem(42)).status).toBe(400);
    expect((await request(api.app).post('/api/v1/auto-login/redeem').send({})).status).toBe(400);
  });

  it('refuses a deactivated employee at redeem', async () => {
    const t2 = await newTenant(api);
    const email = `sorter-${uniqueSuffix()}@example.com`;
    const created = await request(api.app)
      .post('/api/v1/admin/employees')
      .set('Authorization', t2.auth)
      .send({ email, firstName: 'S', lastName: 'S', password: 'sorter-password', roles: ['Sorter'] });
    const sorterToken = (await request(api.app).post('/token').send({ username: email, password: 'sorter-password' })).body.access_token;
    const token = tokenOf((await link('sorting-sorter', '', t2.team, `Bearer ${sorterToken}`)).body);
    const off = await request(api.app).patch(`/api/v1/admin/employees/${created.body.id}`).set('Authorization', t2.auth).send({ isActive: false });
    expect(off.status).toBe(200);
    expect((await redeem(token)).status).toBe(401);
  });

  it.each([
    '//evil.example',
    '//evil.example/path',
    'https://evil.example',
    'https:evil.example',
    'javascript:alert(1)',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/ok\nLocation: x',
    '/a b',
    'walls/3',
    '',
  ])('refuses url %j with 400 (no open redirect)', async (url) => {
    const res = await link('sorting-hub', `?url=${encodeURIComponent(url)}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation-failed', errors: [{ path: 'url' }] });
  });

  it("answers 404 for a team that is not the caller's, in any letter case accepted for its own", async () => {
    const other = await newTenant(api);
    const foreign = await link('sorting-hub', '', other.team);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not-found');
    expect((await link('sorting-hub', '', 'no-such-team')).status).toBe(404);
    expect((await link('sorting-hub', '', t.team.toUpperCase())).status).toBe(200);
  });
});
