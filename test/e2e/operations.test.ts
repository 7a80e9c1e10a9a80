import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import WebSocket from 'ws';
import { attachWebSocketEvents } from '../../services/api/events/websocket-events';
import { setOperationalSources } from '../../services/api/http/metrics';
import { DASHBOARD_COOKIE } from '../../services/api/http/queue-dashboard';
import { signIn, startTestApi, uniqueSuffix, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/** One sample of the Prometheus text: the value of `name{labels}`, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = line.match(/^([a-z_]+)(?:\{(.*)\})? (.+)$/);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('operations: queue dashboard and metrics', () => {
  let api: TestApi;
  let floor: Floor;
  const operator = { email: `ops-${uniqueSuffix()}@example.com`, password: 'operator-pass-1' };
  let operatorAuth: string;

  beforeAll(async () => {
    // The operator is named before the API reads its settings; the tenant's own Admin is not named.
    process.env.QUEUE_DASHBOARD_ADMINS = ` ${operator.email.toUpperCase()} , someone@else.example `;
    // No outbox worker: the events of the scan below stay unpublished, so the outbox gauges move.
    api = await startTestApi({ workers: ['sorting'] });
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    await request(api.app).post('/api/v1/admin/employees').set('Authorization', floor.tenant.auth)
      .send({ ...operator, firstName: 'Ops', lastName: 'Admin', roles: ['Admin'] }).expect(200);
    operatorAuth = `Bearer ${await signIn(api.app, operator.email, operator.password)}`;
  });
  afterAll(async () => {
    delete process.env.QUEUE_DASHBOARD_ADMINS;
    await api.close();
  });

  describe('queue dashboard', () => {
    it('hands an operator Admin a short-lived HttpOnly, SameSite=Strict cookie for /admin/queues only', async () => {
      const res = await request(api.app).post('/admin/queues/session').set('Authorization', operatorAuth).expect(200);
      expect(res.body).toEqual({ url: '/admin/queues', expiresIn: 900 });
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(new RegExp(`^${DASHBOARD_COOKIE}=[\\w.-]+; Path=/admin/queues; Max-Age=900; HttpOnly; SameSite=Strict$`));
      const pair = cookie.split(';')[0];

      const page = await request(api.app).get('/admin/queues').set('Cookie', pair).expect(200);
      expect(page.type).toBe('text/html');
      expect(page.headers['x-frame-options']).toBe('DENY');
      const list = await request(api.app).get('/admin/queues/api/queues').set('Cookie', pair).expect(200);
      const names = (list.body.queues as { name: string }[]).map((q) => q.name);
      expect(names).toEqual(expect.arrayContaining(['{wall-commands-0}', '{wall-commands-7}']));
    });

    it('refuses without the cookie, with a bearer token as the cookie, and for Admins not named as operators', async () => {
      await request(api.app).get('/admin/queues').expect(401).expect('content-type', /problem\+json/);
      await request(api.app).get('/admin/queues/api/queues').set('Cookie', `${DASHBOARD_COOKIE}=${operatorAuth.slice(7)}`).expect(401);
      await request(api.app).post('/admin/queues/session').expect(401);
      const admin = await request(api.app).post('/admin/queues/session').set('Authorization', floor.tenant.auth).expect(403);
      expect(admin.body.detail).toMatch(/QUEUE_DASHBOARD_ADMINS/);
      const sorter = await floor.sorter(1);
      await request(api.app).post('/admin/queues/session').set('Authorization', sorter.auth).expect(403);
    });

    it('is in the OpenAPI document', async () => {
      const doc = await request(api.app).get('/api/v1/openapi.json').expect(200);
      expect(doc.body.paths['/admin/queues/session'].post.operationId).toBe('OpenQueueDashboard');
    });
  });

  describe('metrics', () => {
    it('reports command latency per command, queue depth per queue, outbox and consumer lag, webhook failures and HTTP latency per route', async () => {
      const sorter = await floor.sorter(2);
      const { body: session } = await connect(api, floor, sorter.auth);
      expect((await scan(api, sorter.auth, session.token, 'SKU-A')).status).toBe(200);
      expect((await scan(api, sorter.auth, session.token, 'NO-SUCH-CODE')).status).toBe(422);
      // Through the router (not one of the scan's and confirm's paths taken before it): a refusal too.
      await request(api.app).get('/api/v1/sort-box-items/2147483000').set('Authorization', sorter.auth).expect(404);

      // A failed webhook attempt a minute ago counts; one an hour ago does not.
      const em = api.runtime.orm.em.fork();
      const [sub] = await em.execute<{ id: number }[]>(
        `insert into webhook_subscription (client_id, url, events, secret) values (?, 'https://example.com/hook', '{sort-box.completed}', 's') returning id`,
        [floor.tenant.clientId],
      );
      const before = sample((await request(api.app).get('/metrics')).text, 'webhook_delivery_failures_recent')!;
      await em.execute(
        `insert into webhook_delivery (client_id, subscription_id, event_id, event_type, attempt, status, attempted_at)
         values (?, ?, gen_random_uuid(), 'sort-box.completed', 1, 'failed', now() - interval '1 minute'),
                (?, ?, gen_random_uuid(), 'sort-box.completed', 1, 'failed', now() - interval '1 hour')`,
        [floor.tenant.clientId, sub.id, floor.tenant.clientId, sub.id],
      );

      const text = (await request(api.app).get('/metrics').expect(200)).text;
      expect(sample(text, 'command_duration_seconds_count', { command: 'item.scan', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'command_duration_seconds_count', { command: 'session.start', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'command_duration_seconds_count', { command: 'item.scan', outcome: 'barcode-not-recognized' })).toBeGreaterThanOrEqual(1);
      const completed = [...Array(8).keys()].map((p) => sample(text, 'queue_jobs', { queue: `{wall-commands-${p}}`, state: 'completed' }) ?? 0);
      expect(completed.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3);
      expect(sample(text, 'outbox_unpublished_events')).toBeGreaterThanOrEqual(2);
      // Every consumer's lag: the events are not even relayed here, so none is behind yet.
      for (const consumer of ['audit', 'stats', 'labels', 'webhooks']) expect(sample(text, 'outbox_consumer_lag_seconds', { consumer })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'outbox_lag_seconds')).toBeGreaterThan(0);
      expect(sample(text, 'webhook_delivery_failures_recent')).toBe(before + 1);
      expect(sample(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/sort-box-items', status: '200' })).toBeGreaterThanOrEqual(1);
      // A refused request is labelled with its whole route template as well, the error handler's answer or not.
      expect(sample(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/sort-box-items', status: '422' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/sort-box-items/:id', status: '404' })).toBeGreaterThanOrEqual(1);
      expect(text).not.toMatch(/metrics_collector_errors_total\{/);
    });

    it('answers a scrape while Redis or PostgreSQL hangs or fails, leaving those gauges out and counting the failures', async () => {
      const unset = setOperationalSources({
        queueCounts: () => new Promise(() => undefined),
        outbox: () => Promise.reject(new Error('down')),
        webhookFailures: () => Promise.reject(new Error('down')),
        lightControllers: () => Promise.reject(new Error('down')),
        consumers: () => Promise.reject(new Error('down')),
      });
      try {
        const started = Date.now();
        const first = (await request(api.app).get('/metrics').expect(200)).text;
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(first).not.toMatch(/^queue_jobs\{/m);
        expect(sample(first, 'outbox_lag_seconds')).toBeNaN();
        expect(sample(first, 'outbox_unpublished_events')).toBeNaN();
        expect(sample(first, 'webhook_delivery_failures_recent')).toBeNaN();
        expect(first).not.toMatch(/^light_controllers\{/m);
        expect(first).not.toMatch(/^outbox_consumer_lag_seconds\{/m);
        // The counter is written out before the gauges' collectors finish: the next scrape shows them.
        const next = (await request(api.app).get('/metrics').expect(200)).text;
        for (const collector of ['queue_jobs', 'outbox', 'webhook_failures', 'light_controllers', 'outbox_consumers']) {
          expect(sample(next, 'metrics_collector_errors_total', { collector })).toBeGreaterThanOrEqual(1);
        }
      } finally {
        unset();
      }
    });

    it('counts open WebSocket and SSE hub connections', async () => {
      const server: Server = createServer(api.app);
      const closeWs = attachWebSocketEvents(server, api.deps);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const port = (server.address() as AddressInfo).port;
      const gauge = async () => sample((await request(api.app).get('/metrics')).text, 'hub_connections', { transport: 'websocket' });
      try {
        const before = (await gauge())!;
        const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/events/ws?wallId=${floor.wallId}`, { headers: { Authorization: floor.tenant.auth } });
        await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
        await waitFor(async () => (await gauge()) === before + 1, { what: 'the gauge to count the connection' });
        ws.close();
        await waitFor(async () => (await gauge()) === before, { what: 'the gauge to drop the connection' });

        const sse = async () => sample((await request(api.app).get('/metrics')).text, 'hub_connections', { transport: 'sse' });
        const sseBefore = (await sse())!;
        const req = get(`http://127.0.0.1:${port}/api/v1/events?wallId=${floor.wallId}`, { headers: { Authorization: floor.tenant.auth } });
        req.on('error', () => undefined);
        await waitFor(async () => (await sse()) === sseBefore + 1, { what: 'the SSE stream to be counted' });
        req.destroy();
        await waitFor(async () => (await sse()) === sseBefore, { what: 'the SSE stream to be dropped' });
      } finally {
        await closeWs();
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    });
  });
});
