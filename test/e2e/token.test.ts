import bcrypt from 'bcryptjs';
import request from 'supertest';
import { Employee } from '../../shared/db/entities';
import { verifySecret } from '../../shared/auth/password';
import { newTenant, useTestApi } from '../support/test-api';

describe('POST /token', () => {
  const api = useTestApi();

  it('signs in with e-mail and password and the token opens /employees/me', async () => {
    const t = await newTenant(api);
    const res = await request(api.app).post('/token').send({ username: t.adminEmail.toUpperCase(), password: t.password });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number), access_token: expect.any(String) });
  });

  it('refuses a wrong password with 401 problem+json', async () => {
    const t = await newTenant(api);
    const res = await request(api.app).post('/token').send({ username: t.adminEmail, password: 'wrong' });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 401, code: 'unauthorized', type: 'https://errors.sorting-wall.dev/unauthorized' });
  });

  it('rate-limits repeated failures with 429 and Retry-After', async () => {
    const t = await newTenant(api);
    const limit = api.deps.config.TOKEN_RATE_LIMIT;
    for (let i = 0; i < limit; i++) {
      const r = await request(api.app).post('/token').send({ username: t.adminEmail, password: 'wrong' });
      expect(r.status).toBe(401);
    }
    const res = await request(api.app).post('/token').send({ username: t.adminEmail, password: t.password });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('rate-limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('replaces a bcrypt password hash from before by a scrypt hash at the next successful sign-in', async () => {
    const t = await newTenant(api);
    const em = api.runtime.orm.em.fork();
    const legacy = await bcrypt.hash(t.password, 4);
    await em.nativeUpdate(Employee, { email: t.adminEmail }, { passwordHash: legacy });

    const wrong = await request(api.app).post('/token').send({ username: t.adminEmail, password: 'wrong' });
    expect(wrong.status).toBe(401);
    expect((await em.fork().findOneOrFail(Employee, { email: t.adminEmail })).passwordHash).toBe(legacy);

    const res = await request(api.app).post('/token').send({ username: t.adminEmail, password: t.password });
    expect(res.status).toBe(200);
    const stored = (await em.fork().findOneOrFail(Employee, { email: t.adminEmail })).passwordHash;
    expect(stored).toMatch(new RegExp(`^scrypt\\$${api.deps.config.PASSWORD_HASH_ROUNDS}\\$8\\$1\\$`));
    expect(await verifySecret(t.password, stored)).toBe(true);
    // And the new hash signs in too.
    expect((await request(api.app).post('/token').send({ username: t.adminEmail, password: t.password })).status).toBe(200);
  });

  it('answers 400 validation-failed with errors[] for a bad body, and for malformed JSON', async () => {
    const res = await request(api.app).post('/token').send({ username: '' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation-failed');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['password', 'username']);
    const bad = await request(api.app).post('/token').set('Content-Type', 'application/json').send('{"username":');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation-failed');
  });
});
