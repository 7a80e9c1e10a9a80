import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { WEBHOOK_MAX_ATTEMPTS } from '../../shared/webhooks/webhook-attempts';
import { INACTIVE, UNRECORDED_OUTCOME, deliverClaimed } from '../../workers/webhooks/deliver-webhook.use-case';
import { claimDueDeliveries } from '../../workers/webhooks/delivery.queries';
import { sweepOnce } from '../../workers/sweeper/sweep.use-case';
import { newTenant, startTestApi, type Tenant, type TestApi } from '../support/test-api';
import { sampleData } from '../support/event-samples';

/*
 * Webhook deliveries live in PostgreSQL: what is still to be delivered (webhook_pending, with its
 * attempts and when the next is due) and every attempt (webhook_delivery). An attempt whose outcome
 * could not be recorded (the worker died mid-request, or PostgreSQL went away before the outcome was
 * written) must not stay `pending` forever: the next attempt records it as failed, and the sweeper does
 * so for a last attempt and gives that delivery up.
 */

describe('webhook deliveries from PostgreSQL', () => {
  let api: TestApi;
  let hook: Server;
  let url: string;
  let tenant: Tenant;
  let subscriptionId: number;
  let status = 204;
  let requests = 0;
  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting'], env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    hook = createServer((req, res) => (requests++, req.resume().on('end', () => res.writeHead(status).end())));
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

  const em = () => api.runtime.orm.em.fork();
  const history = async () =>
    (await request(api.app).get(`/api/v1/admin/webhooks/${subscriptionId}/deliveries`).set('Authorization', tenant.auth)).body as {
      eventId: string;
      attempt: number;
      status: string;
      error: string | null;
      nextAttemptAt: string | null;
    }[];
  /** A relayed public event with a delivery pending to the subscription, `attempts` made so far. */
  async function pending(attempts = 0, dueInMs = 0, data: unknown = sampleData('wall.updated')): Promise<string> {
    const id = randomUUID();
    await em().execute(`insert into outbox_event (event_id, client_id, wall_id, type, data) values (?, ?, null, 'wall.updated', ?::jsonb)`, [id, tenant.clientId, JSON.stringify(data)]);
    await em().execute(`insert into webhook_pending (event_id, subscription_id, client_id, attempts, due_at) values (?, ?, ?, ?, now() + make_interval(secs => ? / 1000.0))`, [
      id,
      subscriptionId,
      tenant.clientId,
      attempts,
      dueInMs,
    ]);
    return id;
  }
  /** What a worker that stopped mid-request leaves: the attempt's row, still pending. */
  async function leavePending(eventId: string, attempt: number, attemptedAt = new Date()): Promise<void> {
    await em().execute(`insert into webhook_delivery (client_id, subscription_id, event_id, event_type, attempt, status, attempted_at) values (?, ?, ?, 'wall.updated', ?, 'pending', ?)`, [
      tenant.clientId,
      subscriptionId,
      eventId,
      attempt,
      attemptedAt,
    ]);
  }
  // The jest worker's database holds the deliveries earlier suites left due (other tenants, due before
  // this file's): a claim takes the oldest first, so it asks for all of them, not a sender's batch of 16.
  const claim = (limit = 100_000) =>
    claimDueDeliveries(api.runtime.ormSql, { limit, leaseMs: 60_000, unrecorded: UNRECORDED_OUTCOME, inactive: INACTIVE, maxAttempts: WEBHOOK_MAX_ATTEMPTS });
  const opts = { allowPrivateTargets: true, retryBaseMs: 60_000 };
  const pendingRow = async (eventId: string) =>
    (await em().execute<{ attempts: number; due_at: Date }[]>('select attempts, due_at from webhook_pending where event_id = ?', [eventId]))[0];

  it('the next attempt records the unrecorded one as failed; a success ends the delivery', async () => {
    const e = await pending(1);
    await leavePending(e, 1);
    const claimed = (await claim()).filter((d) => d.event_id === e);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ attempt: 2, url, type: 'wall.updated' });
    // Claimed: leased, so a second sender does not take it.
    expect((await claim()).some((d) => d.event_id === e)).toBe(false);
    await deliverClaimed(api.runtime.ormSql, claimed[0]!, opts);
    const rows = (await history()).filter((r) => r.eventId === e);
    expect(rows.map((r) => [r.attempt, r.status]).sort()).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect(rows.find((r) => r.attempt === 1)!.error).toBe(UNRECORDED_OUTCOME);
    expect(await pendingRow(e)).toBeUndefined();
  });

  it('an event that fails its schema is never sent: its delivery fails at once and is given up into failed_job', async () => {
    const e = await pending(0, 0, { change: 'sideways' });
    const [claimed] = (await claim()).filter((d) => d.event_id === e);
    const sent = requests;
    const outcome = await deliverClaimed(api.runtime.ormSql, claimed!, opts);
    expect(outcome).toMatchObject({ ok: false, retry: false, error: expect.stringMatching(/\(wall\.updated\) does not match its schema/) });
    expect(requests).toBe(sent);
    expect((await history()).find((r) => r.eventId === e)).toMatchObject({ attempt: 1, status: 'failed', nextAttemptAt: null });
    expect(await pendingRow(e)).toBeUndefined();
  });

  it('a failed attempt makes the delivery due again later, in PostgreSQL; the last one gives it up into failed_job', async () => {
    status = 500;
    try {
      const e = await pending();
      const [first] = (await claim()).filter((d) => d.event_id === e);
      const before = Date.now();
      await deliverClaimed(api.runtime.ormSql, first!, opts);
      const row = await pendingRow(e);
      expect(row!.attempts).toBe(1);
      // Due again after the first wait (WEBHOOK_RETRY_BASE_MS), not before.
      expect(new Date(row!.due_at).getTime()).toBeGreaterThanOrEqual(before + 59_000);
      expect((await claim()).some((d) => d.event_id === e)).toBe(false);
      expect((await history()).find((r) => r.eventId === e)).toMatchObject({ attempt: 1, status: 'failed', nextAttemptAt: expect.any(String) });

      // The last attempt fails too: the delivery is given up and recorded.
      await em().execute(`update webhook_pending set attempts = ?, due_at = now() where event_id = ?`, [WEBHOOK_MAX_ATTEMPTS - 1, e]);
      const [last] = (await claim()).filter((d) => d.event_id === e);
      expect(last!.attempt).toBe(WEBHOOK_MAX_ATTEMPTS);
      await deliverClaimed(api.runtime.ormSql, last!, opts);
      expect(await pendingRow(e)).toBeUndefined();
      expect((await history()).find((r) => r.eventId === e && r.attempt === WEBHOOK_MAX_ATTEMPTS)).toMatchObject({ status: 'failed', nextAttemptAt: null });
      const [failed] = await em().execute<{ job_name: string; attempts: number; data: { event: { id: string } } }[]>(
        `select job_name, attempts, data from failed_job where queue = 'webhooks' and job_id = ?`,
        [`webhook_${e}_${subscriptionId}`],
      );
      expect(failed).toMatchObject({ job_name: 'webhook.deliver', attempts: WEBHOOK_MAX_ATTEMPTS, data: { event: { id: e } } });
    } finally {
      status = 204;
    }
  });

  it('the sweeper records a long-pending attempt as failed, gives up a delivery whose last attempt was never recorded, and leaves one under way alone', async () => {
    const old = randomUUID();
    const recent = randomUUID();
    await leavePending(old, 3, new Date(Date.now() - 30 * 60_000));
    await leavePending(recent, 3);
    const abandoned = await pending(WEBHOOK_MAX_ATTEMPTS, -1000);
    const underWay = await pending(WEBHOOK_MAX_ATTEMPTS, 60_000);
    await sweepOnce(api.runtime.ormSql, api.deps.commands, api.runtime.log);
    const rows = await history();
    expect(rows.find((r) => r.eventId === old)).toMatchObject({ status: 'failed', error: expect.stringMatching(/never recorded/) });
    expect(rows.find((r) => r.eventId === recent)).toMatchObject({ status: 'pending' });
    expect(await pendingRow(abandoned)).toBeUndefined();
    expect(await pendingRow(underWay)).toBeDefined();
    const [failed] = await em().execute<{ error: string }[]>(`select error from failed_job where queue = 'webhooks' and job_id = ?`, [`webhook_${abandoned}_${subscriptionId}`]);
    expect(failed!.error).toMatch(/never recorded/);
  });
});
