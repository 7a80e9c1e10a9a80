import request from 'supertest';
import { WebhookDelivery } from '../../shared/db/entities';
import { newTenant, useTestApi, type Tenant } from '../support/test-api';
import { buildFloor } from '../support/sorting-floor';

describe('webhooks (Admin)', () => {
  beforeAll(() => {
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  });
  const api = useTestApi();

  const create = (t: Tenant, body: object) => request(api.app).post('/api/v1/admin/webhooks').set('Authorization', t.auth).send(body);
  const list = (t: Tenant) => request(api.app).get('/api/v1/admin/webhooks').set('Authorization', t.auth);

  it('creates a subscription with a generated whsec_ secret, lists it, lists its deliveries and deletes it', async () => {
    const t = await newTenant(api);
    const res = await create(t, { url: 'https://hooks.example.com/sorting', events: ['session.started', 'sort-box-item.created', 'session.started'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      url: 'https://hooks.example.com/sorting',
      events: ['session.started', 'sort-box-item.created'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
      isActive: true,
      createdAt: expect.any(String),
    });
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(24);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);

    const given = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const all = await create(t, { url: 'http://hooks.example.com/all', events: ['*', 'wall.updated'], secret: given });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ events: ['*'], secret: given });

    const listed = await list(t);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([res.body, all.body]);

    // Deliveries: newest first, limited by count.
    const em = api.runtime.orm.em.fork();
    const eventId = '0b6f6a4e-8c5e-4d7a-9a57-1d2f3c4b5a69';
    for (const [attempt, at] of [
      [1, '2026-11-22T10:00:00.000Z'],
      [2, '2026-11-22T10:00:05.000Z'],
      [3, '2026-11-22T10:00:15.000Z'],
    ] as const) {
      em.create(WebhookDelivery, {
        clientId: t.clientId, subscriptionId: res.body.id, eventId, eventType: 'session.started', attempt,
        status: attempt === 3 ? 'succeeded' : 'failed', responseStatus: attempt === 3 ? 204 : 500, attemptedAt: new Date(at),
      });
    }
    await em.flush();
    const deliveries = await request(api.app).get(`/api/v1/admin/webhooks/${res.body.id}/deliveries?count=2`).set('Authorization', t.auth);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.map((d: { attempt: number }) => d.attempt)).toEqual([3, 2]);
    expect(deliveries.body[0]).toEqual({
      id: expect.any(Number), subscriptionId: res.body.id, eventId, eventType: 'session.started', attempt: 3, status: 'succeeded',
      responseStatus: 204, error: null, durationMs: null, attemptedAt: '2026-11-22T10:00:15.000Z', nextAttemptAt: null,
    });
    const defaultCount = await request(api.app).get(`/api/v1/admin/webhooks/${res.body.id}/deliveries`).set('Authorization', t.auth);
    expect(defaultCount.body).toHaveLength(3);

    const del = await request(api.app).delete(`/api/v1/admin/webhooks/${res.body.id}`).set('Authorization', t.auth);
    expect(del.status).toBe(200);
    expect((await list(t)).body).toEqual([all.body]);
    expect(await api.runtime.orm.em.fork().count(WebhookDelivery, { subscriptionId: res.body.id })).toBe(0);
    const again = await request(api.app).delete(`/api/v1/admin/webhooks/${res.body.id}`).set('Authorization', t.auth);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('not-found');
  });

  it.each([
    [{ url: 'ftp://hooks.example.com/x', events: ['*'] }, 'url'],
    [{ url: 'not a url', events: ['*'] }, 'url'],
    [{ url: 'https://user:pw@hooks.example.com/x', events: ['*'] }, 'url'],
    [{ url: 'http://127.0.0.1:8080/hook', events: ['*'] }, 'url'],
    [{ url: 'http://localhost/hook', events: ['*'] }, 'url'],
    [{ url: 'http://10.1.2.3/hook', events: ['*'] }, 'url'],
    [{ url: 'http://192.168.0.10/hook', events: ['*'] }, 'url'],
    [{ url: 'http://169.254.169.254/latest/meta-data', events: ['*'] }, 'url'],
    [{ url: 'http://[::1]:3000/hook', events: ['*'] }, 'url'],
    [{ url: 'http://[::ffff:127.0.0.1]/hook', events: ['*'] }, 'url'],
    [{ url: 'https://hooks.example.com/x', events: [] }, 'events'],
    [{ url: 'https://hooks.example.com/x', events: ['order.shipped'] }, 'events[0]'],
    [{ url: 'https://hooks.example.com/x' }, 'events'],
    [{ events: ['*'] }, 'url'],
    [{ url: 'https://hooks.example.com/x', events: ['*'], secret: 'plain-secret' }, 'secret'],
    [{ url: 'https://hooks.example.com/x', events: ['*'], secret: 'whsec_c2hvcnQ=' }, 'secret'],
  ])('refuses %j with 400 validation-failed on %s', async (body, path) => {
    const t = await newTenant(api);
    const res = await create(t, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation-failed');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect((await list(t)).body).toEqual([]);
  });

  it('answers 400 for a bad deliveries count and 404 for a missing subscription id', async () => {
    const t = await newTenant(api);
    const { body: sub } = await create(t, { url: 'https://hooks.example.com/x', events: ['*'] });
    for (const count of ['0', '1001', 'ten']) {
      const res = await request(api.app).get(`/api/v1/admin/webhooks/${sub.id}/deliveries?count=${count}`).set('Authorization', t.auth);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation-failed');
    }
    const missing = await request(api.app).get('/api/v1/admin/webhooks/999999/deliveries').set('Authorization', t.auth);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not-found');
  });

  it("answers 404 for another client's subscription and never lists it", async () => {
    const owner = await newTenant(api);
    const other = await newTenant(api);
    const { body: sub } = await create(owner, { url: 'https://hooks.example.com/x', events: ['*'] });
    const del = await request(api.app).delete(`/api/v1/admin/webhooks/${sub.id}`).set('Authorization', other.auth);
    expect(del.status).toBe(404);
    expect(del.body.code).toBe('not-found');
    const deliveries = await request(api.app).get(`/api/v1/admin/webhooks/${sub.id}/deliveries`).set('Authorization', other.auth);
    expect(deliveries.status).toBe(404);
    expect(deliveries.body.code).toBe('not-found');
    expect((await list(other)).body).toEqual([]);
    expect((await list(owner)).body).toEqual([sub]);
  });

  it('answers 403 forbidden to a Sorter and a Manager', async () => {
    const floor = await buildFloor(api);
    const { body: sub } = await create(floor.tenant, { url: 'https://hooks.example.com/x', events: ['*'] });
    for (const who of [await floor.sorter(1), await floor.manager()]) {
      for (const req of [
        request(api.app).post('/api/v1/admin/webhooks').send({ url: 'https://hooks.example.com/y', events: ['*'] }),
        request(api.app).get('/api/v1/admin/webhooks'),
        request(api.app).delete(`/api/v1/admin/webhooks/${sub.id}`),
        request(api.app).get(`/api/v1/admin/webhooks/${sub.id}/deliveries`),
      ]) {
        const res = await req.set('Authorization', who.auth);
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('forbidden');
      }
    }
    expect((await list(floor.tenant)).body).toEqual([sub]);
  });
});
