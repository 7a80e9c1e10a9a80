import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { initOrm, type Orm } from '../../shared/db/orm';
import { createClient } from '../../shared/tenancy/create-client.use-case';
import { getSortingStats } from '../../services/api/use-cases/insights/insights.use-case';
import { PIPELINE_KINDS } from '../../services/supervisor/roles';
import { EVENT_CONSUMERS } from '../support/event-consumers';
import { freePort } from '../../fixtures/local-servers';
import { addEmployee, addOrders, addProducts, addSlots, addWall, addWarehouse } from '../support/fixtures';
import { refSortingStats } from '../support/insights-reference';
import { waitFor } from '../support/wait-for';
import { childrenOf, followLogRecords } from '../support/child-process';

/*
 * Every role of the supervised service (the supervisor of `npm start` with its roles: the API, the
 * sorting worker, the pipeline process) killed with SIGKILL in turn while sorters scan, confirm and
 * release, each restarted by the supervisor. Afterwards: every scan answered 200 is in the database
 * once, every unit confirmed, every event audited once, counted once (the statistics equal the raw
 * events) and delivered to the webhook receiver; every order line's counters equal its items, and every
 * pending unit is in its own order's slot. The supervisor runs from the sources (under tsx, as its
 * roles then do) on this jest worker's database and a Redis prefix of its own.
 */

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const SORTERS = 3;
const UNITS = 300;

interface LogLine {
  role?: string;
  child?: string;
  msg?: string;
  pid?: number;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

const ROLE_OF: Record<string, (cmd: string) => boolean> = {
  api: (c) => c.includes('services/api/main'),
  sorting: (c) => c.includes('workers/main') && / sorting\b/.test(c),
  pipeline: (c) => c.includes(PIPELINE_KINDS.join(',')),
};

describe('every role killed with SIGKILL under load, under the supervisor', () => {
  let supervisor: ChildProcess | undefined;
  const lines: LogLine[] = [];
  let output = '';
  let orm: Orm;
  let receiver: Server;
  const delivered = new Map<string, number>();
  let base = '';
  let clientId = 0;
  let wallId = 0;
  const sorters: { email: string; password: string; auth: string; token: string }[] = [];
  /** Scans answered 200: key → item id. */
  const scanned = new Map<string, number>();
  const confirmed = new Set<number>();
  const answers: string[] = [];

  const pidOf = (role: string) => (supervisor?.pid ? childrenOf(supervisor.pid).find((p) => ROLE_OF[role]!(cmdline(p))) : undefined);
  const count = async (sql: string, params: unknown[] = []) => Number((await orm.em.fork().execute<{ n: string }[]>(sql, params))[0]!.n);

  beforeAll(async () => {
    orm = await initOrm(process.env.DATABASE_URL!, 2);
    receiver = createServer((req, res) => {
      const id = String(req.headers['webhook-id']);
      req.resume();
      req.on('end', () => {
        delivered.set(id, (delivered.get(id) ?? 0) + 1);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));

    // The tenant and its floor, written straight into the database.
    const suffix = randomUUID().slice(0, 8);
    const admin = { email: `admin-${suffix}@crash.example.com`, password: `crash-admin-${suffix}` };
    ({ clientId } = await createClient(orm.em.fork(), { name: `Crash ${suffix}`, team: `crash-${suffix}`, adminEmail: admin.email, adminPassword: admin.password, hashRounds: 4 }));
    const em = orm.em.fork();
    const wh = await addWarehouse(em, clientId, { id: 1 });
    await addProducts(em, clientId, [{ sku: 'SKU-A' }]);
    await addOrders(em, clientId, Array.from({ length: UNITS }, (_, i) => ({ id: i + 1, warehouseId: wh.id, items: [{ sku: 'SKU-A', qty: 1 }] })));
    wallId = (await addWall(em, clientId, { name: `Wall ${suffix}`, warehouseId: wh.id, maxSorters: 6 })).id;
    await addSlots(em, clientId, wallId, 12);
    for (let i = 1; i <= SORTERS; i++) {
      const e = await addEmployee(orm.em.fork(), clientId, { roles: ['Sorter'], email: `sorter${i}-${suffix}@crash.example.com`, password: `crash-sorter-${i}-${suffix}` });
      sorters.push({ email: e.email, password: e.password, auth: '', token: '' });
    }

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    supervisor = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SEED_DEMO: 'false',
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-crash`,
        SORTING_WORKERS: '1',
        API_PROCESSES: '1',
        MQTT_URL: 'off',
        DATABASE_POOL_MAX: '4',
        // A dead sorting worker's partitions move once its leases run out.
        SORTING_LEASE_TTL_MS: '3000',
        COMMAND_TIMEOUT_MS: '8000',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_BASE_MS: '100',
        OUTBOX_CONSUMER_INTERVAL_MS: '50',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    followLogRecords<LogLine>(supervisor, (l) => lines.push(l), (chunk) => {
      output = (output + chunk.toString()).slice(-300_000);
    });
    await waitFor(() => lines.some((l) => l.msg === 'every role started'), { timeoutMs: 120_000, intervalMs: 100, what: 'the supervisor to start its roles' });
    await waitFor(() => PIPELINE_KINDS.every((k) => lines.some((l) => l.msg === `worker '${k}' started`)), { timeoutMs: 120_000, intervalMs: 100, what: 'every pipeline kind to start' });
    await waitFor(() => lines.some((l) => l.msg === 'command workers started'), { timeoutMs: 120_000, intervalMs: 100, what: 'the sorting worker to start' });

    // Sign in, subscribe the receiver to every event, connect the sorters.
    const signIn = async (email: string, password: string) =>
      waitFor(
        async () => {
          const res = await fetch(`${base}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: email, password }) });
          return res.status === 200 ? `Bearer ${((await res.json()) as { access_token: string }).access_token}` : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 200, what: `a sign-in of ${email}` },
      );
    const adminAuth = await signIn(admin.email, admin.password);
    const hook = await fetch(`${base}/api/v1/admin/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: adminAuth },
      body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['*'] }),
    });
    expect(hook.status).toBe(200);
    for (const s of sorters) {
      s.auth = await signIn(s.email, s.password);
      s.token = await connectSorter(s.auth);
    }
  });

  afterAll(async () => {
    if (supervisor?.pid) {
      const left = childrenOf(supervisor.pid);
      supervisor.kill('SIGKILL');
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await new Promise((r) => (receiver?.listening ? receiver.close(r) : r(undefined)));
    await orm?.close();
  });

  /** A request through the API; no answer (the API was killed) is status 0. */
  async function call(method: string, url: string, auth: string, body?: object, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    try {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: auth, 'content-type': 'application/json', ...headers },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    } catch (err) {
      return { status: 0, body: { code: (err as Error).message } };
    }
  }

  /** Sends again after no answer, a 502, 503 or 504 (a scan with the same key), until `done` says it is answered. */
  async function until(what: string, send: () => Promise<{ status: number; body: Record<string, unknown> }>, done: (r: { status: number; body: Record<string, unknown> }) => boolean) {
    for (let attempt = 0; attempt < 600; attempt++) {
      const res = await send();
      if (done(res)) return res;
      answers.push(`${new Date().toISOString()} ${what}: ${res.status} ${String(res.body.code ?? '')}`);
      if (![0, 502, 503, 504].includes(res.status)) throw new Error(`${what}: unexpected ${res.status} ${JSON.stringify(res.body)}`);
      // A device's pause before it tries again, not a wait for a condition.
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${what}: no answer after 600 tries`);
  }

  async function connectSorter(auth: string): Promise<string> {
    const res = await until('connect', () => call('POST', `/api/v1/walls/${wallId}/sessions`, auth, {}), (r) => r.status === 200);
    return res.body.token as string;
  }

  /** One unit: scan (with its key), confirm, and the shipper's release of the completed slot. */
  async function sortOne(s: (typeof sorters)[number]): Promise<void> {
    const key = randomUUID();
    const scan = await until(
      'scan',
      () => call('POST', '/api/v1/sort-box-items', s.auth, { sessionToken: s.token, barcode: 'SKU-A' }, { 'Idempotency-Key': key }),
      (r) => r.status === 200 || r.status === 422,
    );
    if (scan.status !== 200) {
      if (scan.body.code === 'session-ended') s.token = await connectSorter(s.auth);
      else if (!['no-empty-slot', 'no-fulfillable-order'].includes(String(scan.body.code))) throw new Error(`scan refused: ${JSON.stringify(scan.body)}`);
      return;
    }
    const itemId = scan.body.id as number;
    scanned.set(key, itemId);
    await until('confirm', () => call('PATCH', `/api/v1/sort-box-items/${itemId}/confirm`, s.auth, {}), (r) => r.status === 200 || (r.status === 409 && r.body.code === 'item-already-confirmed'));
    confirmed.add(itemId);
    await until('release', () => call('POST', `/api/v1/sort-boxes/B-${String(scan.body.crc)}/release`, s.auth), (r) => r.status === 200 || (r.status >= 400 && r.status < 500 && r.status !== 422));
  }

  it('nothing committed is lost, nothing is applied twice, every counter equals its rows', async () => {
    let stop = false;
    const load = Promise.all(
      sorters.map(async (s) => {
        while (!stop) await sortOne(s);
      }),
    );
    const sortedNow = () => confirmed.size;
    try {
      await waitFor(() => sortedNow() >= 10, { timeoutMs: 60_000, what: '10 units sorted before the first kill' });
      // The pipeline first: a delivery its webhook sender had claimed is due again a minute later, while the others are killed.
      for (const role of ['pipeline', 'sorting', 'api']) {
        const victim = await waitFor(() => pidOf(role), { timeoutMs: 30_000, what: `the ${role} process` });
        process.kill(victim, 'SIGKILL');
        await waitFor(() => lines.some((l) => l.role === 'supervisor' && l.child === role && l.pid === victim && /restarting/.test(l.msg ?? '')), {
          timeoutMs: 10_000,
          what: `the supervisor to restart the ${role} process`,
        });
        await waitFor(() => (pidOf(role) ?? victim) !== victim, { timeoutMs: 30_000, what: `a new ${role} process` });
        const before = sortedNow();
        await waitFor(() => sortedNow() >= before + 10, { timeoutMs: 120_000, what: `10 units sorted after the ${role} process was killed` });
      }
    } catch (err) {
      (err as Error).message += `\nload answers (last 30):\n${answers.slice(-30).join('\n')}\n--- supervisor output ---\n${output.slice(-6000)}`;
      throw err;
    } finally {
      stop = true;
      await load;
    }

    // The load felt the API's death (requests without an answer, sent again).
    expect(answers.some((a) => / 0 /.test(a))).toBe(true);
    process.stdout.write(`\nsupervised crashes: ${confirmed.size} units sorted, ${answers.length} requests sent again\n`);

    // The pipeline caught up: every event of the tenant relayed, every consumer of the service past the
    // last of them (the database is this jest worker's: other files' consumers may have rows in it).
    const consumers = Object.values(EVENT_CONSUMERS).map((c) => c.name);
    await waitFor(
      async () =>
        (await count('select count(*) as n from outbox_event where client_id = ? and id > (select through from outbox_horizon)', [clientId])) === 0 &&
        (await count('select count(*) as n from outbox_consumer c where c.name in (?) and c.position < (select coalesce(max(id), 0) from outbox_event where client_id = ? and id <= (select through from outbox_horizon))', [
          consumers,
          clientId,
        ])) === 0,
      { timeoutMs: 120_000, intervalMs: 500, what: 'every event relayed and every consumer caught up' },
    );

    // Every scan answered 200 is there once, confirmed; no other item exists.
    const items = await count('select count(*) as n from sort_box_item where client_id = ?', [clientId]);
    expect(items).toBe(scanned.size);
    expect(new Set(scanned.values()).size).toBe(scanned.size);
    expect(await count(`select count(*) as n from sort_box_item where client_id = ? and status = 'Confirmed' and id in (?)`, [clientId, [...confirmed]])).toBe(confirmed.size);
    expect(confirmed.size).toBe(scanned.size);
    // No order line over-confirmed: its counters are its items; no slot holds a unit of another order.
    expect(
      await count(
        `select count(*) as n from order_item l where l.client_id = ? and l.confirmed_qty + l.pending_qty <>
           (select coalesce(sum(case when i.status = 'Confirmed' then i.confirmed_units when i.status = 'PendingConfirmation' then i.units else 0 end), 0) from sort_box_item i where i.order_item_id = l.id)`,
        [clientId],
      ),
    ).toBe(0);
    expect(
      await count(
        `select count(*) as n from sort_box_item i join sort_box b on b.id = i.sort_box_id where i.client_id = ? and i.status = 'PendingConfirmation' and b.order_id is distinct from i.order_id`,
        [clientId],
      ),
    ).toBe(0);

    // Every event audited once.
    const events = await count('select count(*) as n from outbox_event where client_id = ?', [clientId]);
    expect(await count(`select count(*) as n from audit_log where client_id = ? and event_id is not null and type <> 'license-plate.generated'`, [clientId])).toBe(events);
    expect(await count('select count(*) as n from outbox_event o where o.client_id = ? and not exists (select 1 from audit_log a where a.event_id = o.event_id)', [clientId])).toBe(0);
    // Every event counted once: the roll-ups answer what plain SQL over the raw events answers.
    const from = new Date(Date.now() - 6 * 3_600_000);
    const to = new Date(Date.now() + 3_600_000);
    const stats = await getSortingStats(orm.em.fork(), clientId, { from, to, warehouseId: null, wallId: null, products: 5 });
    const want = await refSortingStats(orm.em.fork(), { clientId }, from, to, 5);
    expect({ ...stats, averageSecondsToConfirm: null }).toEqual({ ...want, averageSecondsToConfirm: null });
    expect(stats.scans).toBeGreaterThanOrEqual(scanned.size);
    // Every public event delivered to the receiver.
    const publicIds = (await orm.em.fork().execute<{ event_id: string }[]>(`select event_id from outbox_event where client_id = ? and type <> 'command.refused'`, [clientId])).map((r) => r.event_id);
    await waitFor(() => publicIds.every((id) => (delivered.get(id) ?? 0) >= 1), { timeoutMs: 120_000, intervalMs: 200, what: `all ${publicIds.length} webhooks delivered` });
  });
});
