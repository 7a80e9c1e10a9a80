import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { UNRECORDED_OUTCOME, deliverWebhook } from '../../workers/webhooks/deliver-webhook.use-case';
import { sweepOnce } from '../../workers/sweeper/sweep.use-case';
import { newTenant, startTestApi, type Tenant, type TestApi } from '../support/test-api';

/*
 * A webhook attempt whose outcome could not be recorded (the worker died mid-request,
 * or PostgreSQL went away before the outcome was written) must not stay `pending` forever in the
 * delivery history: the next attempt records it as failed, and the sweeper does so for a last attempt.
 */

describe('webhook attempts left pending', () => {
  let api: TestApi;
  let hook: Server;
  let url: string;
  let tenant: Tenant;
  let subscriptionId: number;
  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting'], env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    hook = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    tenant = await newTenant(api);
    const sub = await request(api.app).post('/api/v1/admin/webhooks').set('Authorization', tenant.auth).send({ url, events: ['*'] });
    expect(sub.status).toBe(200);
    subscriptionId = sub.body.id;
  });
  afterAll(async () => {
    await new Promise((r) => hook.close(r));
    await api.close();
  });

  const event = () => ({ id: randomUUID(), type: 'wall.updated', occurredAt: new Date().toISOString(), clientId: tenant.clientId, wallId: null, data: {} });
  const history = async () =>
    (await request(api.app).get(`/api/v1/admin/webhooks/${subscriptionId}/deliveries`).set('Authorization', tenant.auth)).body as { eventId: string; attempt: number; status: string; error: string | null }[];
  /** What a worker that stopped mid-request leaves: the attempt's row, still pending. */
  async function leavePending(eventId: string, attempt: number, attemptedAt = new Date()): Promise<void> {
    await api.runtime.orm.em
      .fork()
      .execute(`insert into webhook_delivery (client_id, subscription_id, event_id, event_type, attempt, status, attempted_at) values (?, ?, ?, 'wall.updated', ?, 'pending', ?)`, [
        tenant.clientId,
        subscriptionId,
        eventId,
        attempt,
        attemptedAt,
      ]);
  }

  it('the next attempt records the unrecorded one as failed', async () => {
    const e = event();
    await leavePending(e.id, 1);
    await deliverWebhook(api.runtime.ormSql, { subscriptionId, clientId: tenant.clientId, event: e }, { attempt: 2, maxAttempts: 12, retryDelayMs: 100 }, { allowPrivateTargets: true });
    const rows = (await history()).filter((r) => r.eventId === e.id);
    expect(rows.map((r) => [r.attempt, r.status]).sort()).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect(rows.find((r) => r.attempt === 1)!.error).toBe(UNRECORDED_OUTCOME);
  });

  it('the sweeper records a long-pending last attempt as failed, and leaves one under way alone', async () => {
    const old = event();
    const recent = event();
    await leavePending(old.id, 12, new Date(Date.now() - 30 * 60_000));
    await leavePending(recent.id, 12);
    await sweepOnce(api.runtime.orm.em.fork(), api.deps.commands, api.runtime.log);
    const rows = await history();
    expect(rows.find((r) => r.eventId === old.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/never recorded/) });
    expect(rows.find((r) => r.eventId === recent.id)).toMatchObject({ status: 'pending' });
  });
});
