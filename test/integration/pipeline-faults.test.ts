import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import IORedis from 'ioredis';
import request from 'supertest';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { spawnWorkerProcess, stopWorkerProcess, workerOutput, type WorkerProcess } from '../support/worker-process';
import { followWall } from '../../services/api/events/event-stream';

/*
 * Faults in the event pipeline, with every role in its own process on a Redis of the test's own:
 * a sorting worker killed with committed but unrelayed events, the relay killed between its commit and
 * its publish while Redis takes no write, Redis killed and restarted under load. Afterwards every
 * committed event is in the audit log exactly once, every public event reached the webhook receiver at
 * least once and the hub once, every scan answered 200 exists, and no scan was applied twice.
 */

// Bounds for a busy 2-core machine; on an idle one the file takes about a minute.
jest.setTimeout(300_000);
// A scan whose worker died waits for the job to be handed out again (lock 5 s + stalled check 2.5 s).
process.env.COMMAND_TIMEOUT_MS = '9000';
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

const SORTERS = 3;

describe('event pipeline under faults (separate processes, real PostgreSQL and Redis)', () => {
  let redis: OwnRedis;
  let api: TestApi;
  let floor: Floor;
  let receiver: Server;
  const received = new Set<string>();
  const processes: WorkerProcess[] = [];
  const live: Partial<Record<'sorting' | 'outbox' | 'audit' | 'webhooks', WorkerProcess>> = {};
  const sorters: { auth: string; token: string }[] = [];
  const okItemIds: number[] = [];
  let workerEnv: Record<string, string>;

  const spawnKind = async (kind: 'sorting' | 'outbox' | 'audit' | 'webhooks', env: Record<string, string> = {}) => {
    const w = spawnWorkerProcess(`${kind} #${processes.length + 1}`, { kind, direct: true, env: { ...workerEnv, ...env } });
    processes.push(w);
    live[kind] = w;
    await waitFor(
      () => {
        if (w.exited) throw new Error(`${w.label} exited at start`);
        return w.output.includes(`worker '${kind}' started`);
      },
      { timeoutMs: 90_000, intervalMs: 50, what: `${w.label} to start` },
    );
    return w;
  };
  const kill = async (kind: keyof typeof live) => {
    const w = live[kind];
    if (w) await stopWorkerProcess(w, 'SIGKILL');
    delete live[kind];
  };
  const db = () => api.runtime.orm.em.fork();
  const count = async (sql: string, params: unknown[] = []) => Number((await db().execute<{ n: string }[]>(sql, params))[0].n);

  /** Each sorter scans one unit after another until `stop()` says so; 200s are kept. */
  const load = (stop: () => boolean) =>
    Promise.all(
      sorters.map(async (s) => {
        const statuses: number[] = [];
        while (!stop()) {
          const res = await scan(api, s.auth, s.token, 'SKU-A');
          statuses.push(res.status);
          if (res.status === 200) okItemIds.push(res.body.id);
          else if (![503, 504].includes(res.status)) throw new Error(`scan answered ${res.status}: ${JSON.stringify(res.body)}`);
        }
        return statuses;
      }),
    ).then((all) => all.flat());

  async function expectConsistent(): Promise<void> {
    const clientId = floor.tenant.clientId;
    await waitFor(async () => (await count('select count(*) as n from outbox_event where client_id = ? and id > (select through from outbox_horizon)', [clientId])) === 0, {
      timeoutMs: 30_000, what: 'every event relayed',
    });
    const events = await count('select count(*) as n from outbox_event where client_id = ?', [clientId]);
    // Bounds with room for a loaded machine: the consumers read the outbox on their own, Redis or not.
    await waitFor(async () => (await count('select count(*) as n from audit_log where client_id = ?', [clientId])) >= events, {
      timeoutMs: 90_000, what: `all ${events} events in the audit log`,
    });
    // Exactly once: one audit record per event, none more, none without its event.
    expect(await count('select count(*) as n from audit_log where client_id = ?', [clientId])).toBe(events);
    expect(await count('select count(*) as n from outbox_event o where o.client_id = ? and not exists (select 1 from audit_log a where a.event_id = o.event_id)', [clientId])).toBe(0);
    // At least once to the webhook receiver: every public event.
    const publicIds = (await db().execute<{ id: string }[]>(`select event_id as id from outbox_event where client_id = ? and type <> 'command.refused'`, [clientId])).map((r) => r.id);
    await waitFor(() => publicIds.every((id) => received.has(id)), { timeoutMs: 90_000, what: `all ${publicIds.length} webhooks delivered` });
    // No scan answered 200 is missing; no scan applied twice.
    expect(await count('select count(*) as n from sort_box_item where client_id = ? and id in (?)', [clientId, okItemIds])).toBe(new Set(okItemIds).size);
    const items = await count('select count(*) as n from sort_box_item where client_id = ?', [clientId]);
    expect(await count(`select count(*) as n from applied_command where client_id = ? and name = 'item.scan'`, [clientId])).toBe(items);
    expect(await count(`select count(*) as n from outbox_event where client_id = ? and type = 'sort-box-item.created'`, [clientId])).toBe(items);
    expect(await count('select coalesce(sum(pending_qty + confirmed_qty), 0) as n from order_item where client_id = ?', [clientId])).toBe(items);
  }

  beforeAll(async () => {
    redis = await startOwnRedis();
    process.env.REDIS_URL = redis.url;
    api = await startTestApi();
    receiver = createServer((req, res) => {
      const id = req.headers['webhook-id'];
      req.resume();
      req.on('end', () => {
        if (typeof id === 'string') received.add(id);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const { port } = receiver.address() as AddressInfo;
    workerEnv = { REDIS_URL: redis.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_BASE_MS: '100', LOG_LEVEL: 'info' };
    // One after the other: four TypeScript processes compiling at once starve a 2-core machine.
    for (const [kind, env] of [['sorting', {}], ['outbox', { OUTBOX_BATCH_SIZE: '10' }], ['audit', {}], ['webhooks', {}]] as const) await spawnKind(kind, env);
    floor = await buildFloor(api, { slots: 40, orders: Array.from({ length: 30 }, (_, i) => ({ id: i + 1, items: [{ sku: 'SKU-A', qty: 100 }] })) });
    const hook = await request(api.app).post('/api/v1/admin/webhooks').set('Authorization', floor.tenant.auth).send({ url: `http://127.0.0.1:${port}/hook`, events: ['*'] });
    expect(hook.status).toBe(200);
    for (let i = 1; i <= SORTERS; i++) {
      const s = await floor.sorter(i);
      const session = await connect(api, floor, s.auth);
      expect(session.status).toBe(200);
      sorters.push({ auth: s.auth, token: session.body.token });
    }
  });

  afterAll(async () => {
    await Promise.all(processes.map((w) => stopWorkerProcess(w, 'SIGKILL')));
    await api?.close();
    await new Promise((r) => (receiver?.listening ? receiver.close(r) : r(undefined)));
    await redis?.close();
  });

  const withOutput = async (fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      (err as Error).message += `\n${workerOutput(processes.slice(-6))}`;
      throw err;
    }
  };

  it('a sorting worker killed between its commits and the relay: the committed events are relayed once', () =>
    withOutput(async () => {
      await kill('outbox');
      let sent = 0;
      const before = okItemIds.length;
      let stop = false;
      const running = load(() => stop || ++sent > 45);
      await waitFor(() => okItemIds.length - before >= 15, { what: '15 scans committed' });
      expect(await count('select count(*) as n from outbox_event where client_id = ? and id > (select through from outbox_horizon)', [floor.tenant.clientId])).toBeGreaterThan(0);
      await kill('sorting'); // mid-load: a command may be under way too
      await spawnKind('sorting');
      await running.finally(() => (stop = true));
      await spawnKind('outbox', { OUTBOX_BATCH_SIZE: '10' });
      await expectConsistent();
    }));

  it('the relay killed between its commit and its publish (Redis paused): consumers go on without Redis, the next relay publishes to the hubs', () =>
    withOutput(async () => {
      await kill('outbox');
      let sent = 0;
      await load(() => ++sent > 30);
      const clientId = floor.tenant.clientId;
      const hub: string[] = [];
      // Where the hub starts: the wall's last relayed event (the 30 scans' events are not relayed yet).
      const [{ anchor }] = await db().execute<{ anchor: string | null }[]>(
        'select coalesce(max(id), 0) as anchor from outbox_event where client_id = ? and wall_id = ? and id <= (select through from outbox_horizon)',
        [clientId, floor.wallId],
      );
      const follower = await followWall(api.runtime.orm.em.fork(), api.deps.events, clientId, floor.wallId, undefined);
      follower.start(
        (_raw, event) => hub.push(event().id),
        () => hub.push('ended'),
      );
      const control = new IORedis(redis.url);
      try {
        // Writes pause (PUBLISH too): the relay stamps a batch, commits it, and blocks publishing it.
        await control.client('PAUSE', 30_000, 'WRITE');
        const relay = spawnWorkerProcess(`outbox #${processes.length + 1}`, { kind: 'outbox', direct: true, env: { ...workerEnv, OUTBOX_BATCH_SIZE: '10' } });
        processes.push(relay);
        const stamped = async () => count('select count(*) as n from outbox_event where client_id = ? and id <= (select through from outbox_horizon)', [clientId]);
        const before = await stamped();
        await waitFor(async () => (await stamped()) > before, { timeoutMs: 60_000, what: 'the relay to commit a batch' });
        // Its events reach the audit log while Redis takes no write: consumers read PostgreSQL only.
        await waitFor(
          async () => (await count('select count(*) as n from outbox_event o where o.client_id = ? and o.id <= (select through from outbox_horizon) and not exists (select 1 from audit_log a where a.event_id = o.event_id)', [clientId])) === 0,
          { timeoutMs: 30_000, what: 'the stamped events audited while Redis is paused' },
        );
        await stopWorkerProcess(relay, 'SIGKILL');
      } finally {
        await control.client('UNPAUSE');
        control.disconnect();
      }
      await spawnKind('outbox', { OUTBOX_BATCH_SIZE: '10' });
      await expectConsistent();
      // The hub got every event of the wall since it opened, once and in order: the stamped batch
      // the killed relay never published came from the relay that took over.
      const expected = (
        await db().execute<{ event_id: string }[]>(
          `select event_id from outbox_event where client_id = ? and wall_id = ? and id > ? order by id`,
          [clientId, floor.wallId, anchor],
        )
      ).map((r) => r.event_id);
      await waitFor(() => expected.every((id) => hub.includes(id)), { timeoutMs: 30_000, what: `the hub to receive all ${expected.length} events` }).catch((err: Error) => {
        // Which of them, in the wall's order: a gap at the start, in the middle or at the end tells apart a
        // follower that dropped what came late, a relay that skipped a batch and one that stopped.
        const got = expected.map((id) => (hub.includes(id) ? 'y' : '-')).join('');
        throw new Error(`${err.message}; received (in outbox order) ${got}; the hub saw ${hub.length} messages, ${hub.filter((m) => m === 'ended').length} ends`);
      });
      expect(hub).toEqual(expected);
      await follower.stop();
    }));

  it('Redis killed and restarted under load (AOF): nothing answered 200 is lost, every event audited once and delivered', () =>
    withOutput(async () => {
      const before = okItemIds.length;
      let stop = false;
      const running = load(() => stop);
      await waitFor(() => okItemIds.length - before >= 15, { what: '15 scans before the restart' });
      await redis.kill();
      await redis.start();
      const restarted = okItemIds.length;
      await waitFor(() => okItemIds.length - restarted >= 15, { timeoutMs: 60_000, what: '15 scans after the restart' });
      stop = true;
      const statuses = await running;
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(30);
      await expectConsistent();
    }));
});
