import request from 'supertest';
import { Employee } from '../../shared/db/entities';
import { verifySecret } from '../../shared/auth/password';
import { newTenant, signedInEmployee, signIn, uniqueSuffix, useTestApi, type Tenant } from '../support/test-api';

describe('employees', () => {
  const api = useTestApi();

  const newEmployee = (roles: string[] = ['Sorter'], over: Record<string, unknown> = {}) => ({
    email: `Sorter-${uniqueSuffix()}@Example.com`,
    firstName: 'Sam',
    lastName: 'Sorter',
    password: 'sorter-password',
    roles,
    ...over,
  });

  async function create(t: Tenant, body: Record<string, unknown>) {
    return request(api.app).post('/api/v1/admin/employees').set('Authorization', t.auth).send(body);
  }

  async function signedInAs(t: Tenant, roles: string[]): Promise<{ id: number; email: string; auth: string }> {
    const body = newEmployee(roles);
    const res = await create(t, body);
    expect(res.status).toBe(200);
    const token = await signIn(api.app, body.email, body.password);
    return { id: res.body.id, email: res.body.email, auth: `Bearer ${token}` };
  }

  describe('GET /admin/employees', () => {
    it("lists the company's employees, active or not, oldest first; Admins only", async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const manager = await signedInEmployee(api, t, { roles: ['Manager'] });
      const sorter = await signedInEmployee(api, t, { roles: ['Sorter'] });
      await request(api.app).patch(`/api/v1/admin/employees/${sorter.id}`).set('Authorization', t.auth).send({ isActive: false }).expect(200);
      const res = await request(api.app).get('/api/v1/admin/employees').set('Authorization', t.auth);
      expect(res.status).toBe(200);
      expect(res.body.map((e: { id: number; isActive: boolean }) => [e.id, e.isActive])).toEqual([[t.adminId, true], [manager.id, true], [sorter.id, false]]);
      expect(JSON.stringify(res.body)).not.toMatch(/password|hash/i);
      expect((await request(api.app).get('/api/v1/admin/employees').set('Authorization', other.auth)).body).toHaveLength(1);
      expect((await request(api.app).get('/api/v1/admin/employees').set('Authorization', manager.auth)).status).toBe(403);
    });
  });

  describe('POST /admin/employees', () => {
    it('creates an employee with a lower-cased e-mail and a hashed password, who can sign in', async () => {
      const t = await newTenant(api);
      const body = newEmployee(['Sorter', 'Manager', 'Sorter']);
      const res = await create(t, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: expect.any(Number),
        email: body.email.toLowerCase(),
        firstName: 'Sam',
        lastName: 'Sorter',
        roles: ['Sorter', 'Manager'],
        isActive: true,
      });
      expect(res.body.passwordHash).toBeUndefined();
      const stored = await api.runtime.orm.em.fork().findOneOrFail(Employee, { id: res.body.id });
      expect(stored.clientId).toBe(t.clientId);
      expect(stored.passwordHash).not.toBe(body.password);
      expect(await verifySecret(body.password, stored.passwordHash)).toBe(true);
      await expect(signIn(api.app, body.email, body.password)).resolves.toEqual(expect.any(String));
    });

    it('answers 409 email-taken for an address in use, in any case and in any company', async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const body = newEmployee();
      expect((await create(t, body)).status).toBe(200);
      const again = await create(t, { ...body, email: body.email.toUpperCase() });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('email-taken');
      const elsewhere = await create(other, { ...body, email: ` ${body.email.toLowerCase()} ` });
      expect(elsewhere.status).toBe(409);
      expect(elsewhere.body.code).toBe('email-taken');
      const admin = await create(t, newEmployee(['Sorter'], { email: other.adminEmail }));
      expect(admin.status).toBe(409);
    });

    it('answers 400 for a short password, no roles, an unknown role or a bad e-mail', async () => {
      const t = await newTenant(api);
      const cases: [Record<string, unknown>, string][] = [
        [newEmployee(['Sorter'], { password: 'short' }), 'password'],
        [newEmployee([]), 'roles'],
        [newEmployee(['Boss']), 'roles[0]'],
        [newEmployee(['Sorter'], { email: 'not-an-address' }), 'email'],
        [newEmployee(['Sorter'], { firstName: '  ' }), 'firstName'],
      ];
      for (const [body, path] of cases) {
        const res = await create(t, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation-failed');
        expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      }
    });

    it('is for Admins only: a Sorter or Manager gets 403, no token 401', async () => {
      const t = await newTenant(api);
      for (const roles of [['Sorter'], ['Manager']]) {
        const user = await signedInAs(t, roles);
        const res = await request(api.app).post('/api/v1/admin/employees').set('Authorization', user.auth).send(newEmployee());
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
      const anon = await request(api.app).post('/api/v1/admin/employees').send(newEmployee());
      expect(anon.status).toBe(401);
    });
  });

  describe('PATCH /admin/employees/{id}', () => {
    it('changes names, roles, password and active flag, only the fields given', async () => {
      const t = await newTenant(api);
      const body = newEmployee(['Sorter']);
      const { body: created } = await create(t, body);
      const patch = (b: Record<string, unknown>) =>
        request(api.app).patch(`/api/v1/admin/employees/${created.id}`).set('Authorization', t.auth).send(b);

      const renamed = await patch({ firstName: 'Samantha', roles: ['Manager'] });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...created, firstName: 'Samantha', roles: ['Manager'] });

      expect((await patch({ password: 'a-new-password' })).status).toBe(200);
      await expect(signIn(api.app, body.email, body.password)).rejects.toThrow(/401/);
      await expect(signIn(api.app, body.email, 'a-new-password')).resolves.toEqual(expect.any(String));

      const off = await patch({ isActive: false });
      expect(off.status).toBe(200);
      expect(off.body).toMatchObject({ isActive: false, firstName: 'Samantha', lastName: 'Sorter' });
      await expect(signIn(api.app, body.email, 'a-new-password')).rejects.toThrow(/401/);
    });

    it('answers 404 for an unknown id and for another company\'s employee, and changes nothing', async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const missing = await request(api.app).patch('/api/v1/admin/employees/2147483000').set('Authorization', t.auth).send({ firstName: 'X' });
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('not-found');
      const foreign = await request(api.app)
        .patch(`/api/v1/admin/employees/${other.adminId}`)
        .set('Authorization', t.auth)
        .send({ firstName: 'Hacked', isActive: false });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('not-found');
      const stored = await api.runtime.orm.em.fork().findOneOrFail(Employee, { id: other.adminId });
      expect(stored.firstName).not.toBe('Hacked');
      expect(stored.isActive).toBe(true);
    });

    it('answers 409 last-admin when the only active Admin would lose the role or be deactivated', async () => {
      const t = await newTenant(api);
      const url = `/api/v1/admin/employees/${t.adminId}`;
      const demote = await request(api.app).patch(url).set('Authorization', t.auth).send({ roles: ['Manager'] });
      expect(demote.status).toBe(409);
      expect(demote.body.code).toBe('last-admin');
      const deactivate = await request(api.app).patch(url).set('Authorization', t.auth).send({ isActive: false });
      expect(deactivate.status).toBe(409);
      expect(deactivate.body.code).toBe('last-admin');
      expect((await api.runtime.orm.em.fork().findOneOrFail(Employee, { id: t.adminId })).roles).toEqual(['Admin']);

      // With a second Admin, the first may step down.
      const second = await create(t, newEmployee(['Admin']));
      expect(second.status).toBe(200);
      const ok = await request(api.app).patch(url).set('Authorization', t.auth).send({ roles: ['Manager'] });
      expect(ok.status).toBe(200);
      expect(ok.body.roles).toEqual(['Manager']);
    });

    it('answers 400 for an unknown field (the e-mail cannot change), a bad id or a bad value', async () => {
      const t = await newTenant(api);
      const { body: created } = await create(t, newEmployee());
      const email = await request(api.app)
        .patch(`/api/v1/admin/employees/${created.id}`)
        .set('Authorization', t.auth)
        .send({ email: 'new@example.com' });
      expect(email.status).toBe(400);
      expect(email.body.code).toBe('validation-failed');
      const badId = await request(api.app).patch('/api/v1/admin/employees/abc').set('Authorization', t.auth).send({ firstName: 'X' });
      expect(badId.status).toBe(400);
      const badRoles = await request(api.app).patch(`/api/v1/admin/employees/${created.id}`).set('Authorization', t.auth).send({ roles: [] });
      expect(badRoles.status).toBe(400);
      expect(badRoles.body.errors[0].path).toBe('roles');
    });

    it('is for Admins only', async () => {
      const t = await newTenant(api);
      const manager = await signedInAs(t, ['Manager']);
      const res = await request(api.app).patch(`/api/v1/admin/employees/${manager.id}`).set('Authorization', manager.auth).send({ roles: ['Admin'] });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('forbidden');
    });
  });

  describe('GET /employees', () => {
    it('/employees/me answers the signed-in employee, for any role', async () => {
      const t = await newTenant(api);
      const sorter = await signedInAs(t, ['Sorter']);
      const me = await request(api.app).get('/api/v1/employees/me').set('Authorization', sorter.auth);
      expect(me.status).toBe(200);
      expect(me.body).toEqual({ id: sorter.id, email: sorter.email, firstName: 'Sam', lastName: 'Sorter', roles: ['Sorter'], isActive: true });
      const admin = await request(api.app).get('/api/v1/employees/me').set('Authorization', t.auth);
      expect(admin.body).toMatchObject({ id: t.adminId, email: t.adminEmail, roles: ['Admin'] });
    });

    it('/employees/{id} answers an employee of the company; 404 for another company\'s; 400 for a non-integer id', async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const sorter = await signedInAs(t, ['Sorter']);
      const res = await request(api.app).get(`/api/v1/employees/${t.adminId}`).set('Authorization', sorter.auth);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: t.adminId, email: t.adminEmail, roles: ['Admin'], isActive: true });
      const foreign = await request(api.app).get(`/api/v1/employees/${other.adminId}`).set('Authorization', t.auth);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('not-found');
      const missing = await request(api.app).get('/api/v1/employees/2147483000').set('Authorization', t.auth);
      expect(missing.status).toBe(404);
      const bad = await request(api.app).get('/api/v1/employees/abc').set('Authorization', t.auth);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('validation-failed');
      const anon = await request(api.app).get(`/api/v1/employees/${t.adminId}`);
      expect(anon.status).toBe(401);
    });

    it('/employees/by-email/{email} matches any letter case, only within the company', async () => {
      const t = await newTenant(api);
      const other = await newTenant(api);
      const sorter = await signedInAs(t, ['Sorter']);
      const res = await request(api.app)
        .get(`/api/v1/employees/by-email/${encodeURIComponent(sorter.email.toUpperCase())}`)
        .set('Authorization', t.auth);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: sorter.id, email: sorter.email });
      const foreign = await request(api.app).get(`/api/v1/employees/by-email/${encodeURIComponent(other.adminEmail)}`).set('Authorization', t.auth);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('not-found');
      const missing = await request(api.app).get('/api/v1/employees/by-email/nobody%40example.com').set('Authorization', t.auth);
      expect(missing.status).toBe(404);
    });
  });
});
