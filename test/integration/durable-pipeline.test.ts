import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import WebSocket from 'ws';
import { ensureDatabase, initOrm, migrate } from '../../shared/db/orm';
import { attachWebSocketEvents } from '../../services/api/events/websocket-events';
import { getSortingStats } from '../../services/api/use-cases/insights/insights.use-case';
import { UNRECORDED_OUTCOME } from '../../workers/webhooks/deliver-webhook.use-case';
import { refSortingStats } from '../support/insights-reference';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { buildFloor, connect, type Floor } from '../support/sorting-floor';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { spawnWorkerProcess, stopWorkerProcess, workerOutput, type WorkerProcess } from '../support/worker-process';

/*
 * Nothing committed is lost when Redis restarts empty or PostgreSQL is down for long, on a PostgreSQL
 * and a Redis (no persistence) of the test's own. The API and the sorting, outbox, stats, labels,
 * webhooks and sweeper workers run in this process; the audit worker in a process of its own, so it can
 * be paused (SIGSTOP) like a slow or restarting consumer. Sorters scan, confirm and release under load
 * through each fault; afterwards every committed event is audited, counted, rendered and delivered
 * exactly once, a hub WebSocket open throughout received every event of its wall once and in order, no
 * event was given up (failed_job), and idle sessions still expire.
 */

jest.setTimeout(600_000);

const SORTERS = 3;
const UNITS = 400;

describe('a durable event pipeline: Redis restarted empty, PostgreSQL down for long', () => {
  let pg: OwnPostgres;
  let redis: OwnRedis;
  let api: TestApi;
  let floor: Floor;
  let server: Server;
  let receiver: Server;
  let audit: WorkerProcess | null = null;
  const processes: WorkerProcess[] = [];
  let env: Record<string, string>;
  /** Answers per event id of the webhook receiver: how many 2xx it gave. */
  const delivered = new Map<string, number>();
  let failFirstAttempt = false;
  const attempted = new Set<string>();
  const hub: string[] = [];
  let hubClosed = false;
  let hubAnchor = 0n;
  let sorters: { auth: string; token: string }[] = [];
  let closeWs: (() => Promise<void>) | null = null;
  /** Every answer of the load that was not the one it waited for, for the failure message. */
  const answers: string[] = [];

  const em = () => api.runtime.orm.em.fork();
  const count = async (sql: string, params: unknown[] = []) => Number((await em().execute<{ n: string }[]>(sql, params))[0]!.n);

  /** One unit sorted: scan, confirm, and the shipper's release of the completed slot; resent with the same key after a 503 or 504. */
  async function sortOne(s: { auth: string; token: string }, sorterNo: number): Promise<void> {
    const send = async (make: () => request.Test, done: (res: request.Response) => boolean, onNewSession?: () => void): Promise<request.Response> => {
      for (let attempt = 0; attempt < 400; attempt++) {
        const res = await make().catch((err: Error) => {
          answers.push(`${new Date().toISOString()} no answer: ${err.message}`);
          return null;
        });
        if (res && done(res)) return res;
        if (res) answers.push(`${new Date().toISOString()} ${res.status} ${res.body?.code ?? ''}`);
        // A session that expired meanwhile (an outage longer than the test's short idle timeout): the
        // sorter connects again, as on the floor, and scans anew; a unit of the ended session is left.
        if (res && (res.status === 409 || res.status === 422) && res.body?.code === 'session-ended') {
          s.token = (await connect(api, floor, s.auth)).body.token;
          if (!onNewSession) return res;
          onNewSession();
          continue;
        }
        if (res && ![502, 503, 504].includes(res.status)) throw new Error(`unexpected ${res.status}: ${JSON.stringify(res.body)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error('no answer after 100 s');
    };
    let key = randomUUID();
    const scanned = await send(
      () => request(api.app).post('/api/v1/sort-box-items').set('Authorization', s.auth).set('Idempotency-Key', key).send({ sessionToken: s.token, barcode: 'SKU-A' }),
      (r) => r.status === 200 || r.status === 422,
      () => (key = randomUUID()), // a new scan on the new session
    );
    if (scanned.status !== 200) {
      // No empty slot or no open order: a refused scan is an event too.
      if (!['no-empty-slot', 'no-fulfillable-order', 'session-ended'].includes(scanned.body.code)) throw new Error(`scan refused: ${JSON.stringify(scanned.body)}`);
      return;
    }
    await send(
      () => request(api.app).patch(`/api/v1/sort-box-items/${scanned.body.id}/confirm`).set('Authorization', s.auth),
      (r) => r.status === 200 || (r.status === 409 && r.body.code === 'item-already-confirmed'),
    );
    void sorterNo;
    await send(
      () => request(api.app).post(`/api/v1/sort-boxes/B-${scanned.body.crc}/release`).set('Authorization', s.auth),
      (r) => r.status === 200 || (r.status >= 400 && r.status < 500 && r.status !== 422),
    );
  }

  /** Every sorter sorts until `stop()`; the units sorted. */
  const load = (stop: () => boolean) =>
    Promise.all(
      sorters.map(async (s, i) => {
        let n = 0;
        while (!stop()) {
          try {
            await sortOne(s, i);
          } catch (err) {
            answers.push(`${new Date().toISOString()} sorter ${i} stopped: ${(err as Error).message}`);
            throw err;
          }
          n++;
        }
        return n;
      }),
    ).then((all) => all.reduce((a, b) => a + b, 0));

  async function expectEverythingOnce(): Promise<void> {
    const clientId = floor.tenant.clientId;
    // Everything relayed, and every consumer past the last relayed event.
    await waitFor(
      async () =>
        (await count('select count(*) as n from outbox_event where id > (select through from outbox_horizon)')) === 0 &&
        (await count(`select count(*) as n from outbox_consumer c where c.position < (select through from outbox_horizon)`)) === 0,
      { timeoutMs: 180_000, intervalMs: 500, what: 'every event relayed and every consumer caught up' },
    );
    const events = await count('select count(*) as n from outbox_event where client_id = ?', [clientId]);
    // Audited exactly once: one record per event, none more, none missing.
    expect(await count('select count(*) as n from audit_log where client_id = ? and event_id is not null and type <> ?', [clientId, 'license-plate.generated'])).toBe(events);
    expect(await count('select count(*) as n from outbox_event o where o.client_id = ? and not exists (select 1 from audit_log a where a.event_id = o.event_id)', [clientId])).toBe(0);
    // Counted exactly once: the roll-ups answer what plain SQL over the raw events answers.
    const from = new Date(Date.now() - 6 * 3_600_000);
    const to = new Date(Date.now() + 3_600_000);
    const stats = await getSortingStats(em(), clientId, { from, to, warehouseId: null, wallId: null, products: 5 });
    const want = await refSortingStats(em(), { clientId }, from, to, 5);
    expect({ ...stats, averageSecondsToConfirm: null }).toEqual({ ...want, averageSecondsToConfirm: null });
    expect(stats.scans).toBeGreaterThan(0);
    // Rendered: every completed order's label ahead, in the format the client prints (ZPL only).
    const completed = await count(`select count(distinct (data->>'orderId')::int) as n from outbox_event where client_id = ? and type = 'sort-box.completed'`, [clientId]);
    expect(completed).toBeGreaterThan(0);
    expect(await count(`select count(*) as n from license_plate_document where client_id = ? and format = 'zpl'`, [clientId])).toBe(completed);
    expect(await count(`select count(*) as n from license_plate_document where client_id = ? and format = 'pdf'`, [clientId])).toBe(0);
    // Delivered: every public event answered 2xx once, a second time only after an attempt whose outcome was never recorded.
    const publicIds = (await em().execute<{ event_id: string }[]>(`select event_id from outbox_event where client_id = ? and type <> 'command.refused'`, [clientId])).map((r) => r.event_id);
    await waitFor(() => publicIds.every((id) => (delivered.get(id) ?? 0) >= 1), { timeoutMs: 120_000, what: `all ${publicIds.length} webhooks delivered` });
    const unrecorded = new Set(
      (await em().execute<{ event_id: string }[]>(`select distinct event_id from webhook_delivery where client_id = ? and error = ?`, [clientId, UNRECORDED_OUTCOME])).map((r) => r.event_id),
    );
    const twice = publicIds.filter((id) => (delivered.get(id) ?? 0) > 1 && !unrecorded.has(id));
    expect(twice).toEqual([]);
    // Given up: nothing.
    expect(await count(`select count(*) as n from failed_job where queue like 'consumer:%' or queue = 'webhooks'`)).toBe(0);
    // The hub: every event of its wall since it opened (refusals too), once, in order.
    const wallEvents = (
      await em().execute<{ event_id: string }[]>(`select event_id from outbox_event where client_id = ? and wall_id = ? and id > ? order by id`, [
        clientId,
        floor.wallId,
        hubAnchor.toString(),
      ])
    ).map((r) => r.event_id);
    await waitFor(() => hub.length >= wallEvents.length, { timeoutMs: 60_000, what: `the hub to receive all ${wallEvents.length} events (has ${hub.length})` });
    expect(hubClosed).toBe(false);
    expect(hub).toEqual(wallEvents);
  }

  beforeAll(async () => {
    // Durable commits: the outage below is a crash, after which everything committed must be there.
    pg = await startOwnPostgres({ durable: true });
    redis = await startOwnRedis({ persistence: false });
    const databaseUrl = pg.urlOf('sorting');
    await ensureDatabase(databaseUrl);
    const orm = await initOrm(databaseUrl, 1);
    await migrate(orm);
    await orm.close();
    receiver = createServer((req, res) => {
      const id = String(req.headers['webhook-id']);
      req.resume();
      req.on('end', () => {
        if (failFirstAttempt && !attempted.has(id)) {
          attempted.add(id);
          return void res.writeHead(500).end();
        }
        attempted.add(id);
        delivered.set(id, (delivered.get(id) ?? 0) + 1);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      DATABASE_POOL_MAX: '6',
      DATABASE_ACQUIRE_TIMEOUT_MS: '2000',
      // The retry budgets, short: an outage far longer than them must give nothing up.
      OUTBOX_CONSUMER_ATTEMPTS: '2',
      OUTBOX_CONSUMER_RETRY_BASE_MS: '20',
      WEBHOOK_RETRY_BASE_MS: '5',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      OUTBOX_CONSUMER_INTERVAL_MS: '50',
      SESSION_SWEEP_INTERVAL_MS: '500',
      SESSION_IDLE_TIMEOUT_MS: '20000',
      COMMAND_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'info',
    };
    api = await startTestApi({ workers: ['sorting', 'outbox', 'stats', 'labels', 'webhooks', 'sweeper'], env: { ...env, LOG_LEVEL: 'error' } });
    audit = spawnWorkerProcess('audit', { kind: 'audit', direct: true, env });
    processes.push(audit);
    await waitFor(
      () => {
        if (audit!.exited) throw new Error('the audit worker exited at start');
        return audit!.output.includes(`worker 'audit' started`);
      },
      { timeoutMs: 120_000, intervalMs: 100, what: 'the audit worker to start' },
    );
    floor = await buildFloor(api, { slots: 12, orders: Array.from({ length: UNITS }, (_, i) => ({ id: i + 1, items: [{ sku: 'SKU-A', qty: 1 }] })) });
    const hook = await request(api.app)
      .post('/api/v1/admin/webhooks')
      .set('Authorization', floor.tenant.auth)
      .send({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['*'] });
    expect(hook.status).toBe(200);
    for (let i = 1; i <= SORTERS; i++) {
      const s = await floor.sorter(i);
      const session = await connect(api, floor, s.auth);
      expect(session.status).toBe(200);
      sorters.push({ auth: s.auth, token: session.body.token });
    }
    // The client prints ZPL (the last order, never sorted here): labels are rendered ahead in ZPL only.
    expect((await request(api.app).post(`/api/v1/license-plates/orders/${UNITS}/zpl`).set('Authorization', sorters[0]!.auth)).status).toBe(200);

    // A hub: a real WebSocket on this API, open through every fault.
    server = createServer(api.app);
    closeWs = attachWebSocketEvents(server, api.deps);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const [{ anchor }] = await em().execute<{ anchor: string }[]>(
      'select coalesce(max(id), 0) as anchor from outbox_event where client_id = ? and wall_id = ? and id <= (select through from outbox_horizon)',
      [floor.tenant.clientId, floor.wallId],
    );
    hubAnchor = BigInt(anchor);
    const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/events/ws?wallId=${floor.wallId}`, {
      headers: { Authorization: floor.tenant.auth },
    });
    ws.on('message', (m) => hub.push((JSON.parse(m.toString()) as { id: string }).id));
    ws.on('close', () => (hubClosed = true));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
  });

  afterAll(async () => {
    await Promise.all(processes.map((w) => stopWorkerProcess(w, 'SIGKILL')));
    await closeWs?.();
    server?.closeAllConnections();
    await new Promise((r) => (server?.listening ? server.close(r) : r(undefined)));
    // Bounded: the servers of this test are stopped whatever happens.
    await Promise.race([api?.close(), new Promise((r) => setTimeout(r, 30_000))]);
    await new Promise((r) => (receiver?.listening ? receiver.close(r) : r(undefined)));
    await redis?.close();
    await pg?.close();
  });

  const withOutput = async (fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      (err as Error).message += `\nload answers (last 40 of ${answers.length}):\n${answers.slice(-40).join('\n')}\n${workerOutput(processes)}`;
      throw err;
    }
  };

  it('Redis killed and restarted empty under load, with the audit consumer paused: everything once, the hub complete, sessions still expire', () =>
    withOutput(async () => {
      let stop = false;
      audit!.child.kill('SIGSTOP');
      const running = load(() => stop);
      await waitFor(async () => (await count(`select count(*) as n from sort_box_item where client_id = ? and status = 'Confirmed'`, [floor.tenant.clientId])) >= 10, {
        timeoutMs: 60_000,
        what: '10 units sorted before the restart',
      });
      await redis.kill();
      await redis.start();
      const after = await count(`select count(*) as n from sort_box_item where client_id = ? and status = 'Confirmed'`, [floor.tenant.clientId]);
      await waitFor(async () => (await count(`select count(*) as n from sort_box_item where client_id = ? and status = 'Confirmed'`, [floor.tenant.clientId])) >= after + 10, {
        timeoutMs: 60_000,
        what: '10 more units sorted after the restart',
      });
      stop = true;
      expect(await running).toBeGreaterThan(0);
      audit!.child.kill('SIGCONT');
      await expectEverythingOnce();

      // The sweeper still runs: every idle session expires (SESSION_IDLE_TIMEOUT_MS), through its wall's queue.
      await waitFor(
        async () => (await count(`select count(*) as n from sorter_session where client_id = ? and status = 'Connected'`, [floor.tenant.clientId])) === 0,
        { timeoutMs: 90_000, intervalMs: 500, what: 'the idle sessions to expire' },
      );
      expect(await count(`select count(*) as n from sorter_session where client_id = ? and end_reason = 'Expired'`, [floor.tenant.clientId])).toBeGreaterThanOrEqual(SORTERS);
    }));

  it('PostgreSQL down far longer than the retry budgets, under load, receivers failing first attempts: nothing given up, everything once', () =>
    withOutput(async () => {
      failFirstAttempt = true;
      sorters = await Promise.all(
        sorters.map(async (s) => {
          const session = await connect(api, floor, s.auth);
          expect(session.status).toBe(200);
          return { auth: s.auth, token: session.body.token };
        }),
      );
      let stop = false;
      const running = load(() => stop);
      const confirmed = () => count(`select count(*) as n from sort_box_item where client_id = ? and status = 'Confirmed'`, [floor.tenant.clientId]);
      const before = await confirmed();
      await waitFor(async () => (await confirmed()) >= before + 10, { timeoutMs: 120_000, what: '10 units sorted before the outage' });
      await pg.kill();
      // Down for 15 s: the consumers' budget is 2 attempts 20 ms apart, the webhooks' about 10 s.
      await new Promise((r) => setTimeout(r, 15_000));
      await pg.start();
      const after = await confirmed();
      await waitFor(async () => (await confirmed()) >= after + 10, { timeoutMs: 90_000, what: '10 more units sorted after the outage' });
      stop = true;
      expect(await running).toBeGreaterThan(0);
      await expectEverythingOnce();
    }));
});
