import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { ensureDatabase, initOrm, migrate } from '../shared/db/orm';
import { createRedis } from '../shared/redis/redis';
import { cpuMs } from './cpu-usage';
import { pollUntil } from './service-processes';

/*
 * `npx tsx bench/relay-cpu.ts`: CPU per outbox event of the outbox relay (worker kind `outbox`), its
 * PostgreSQL backends and Redis, for docs/scaling.md. The relay runs as its own process on an empty
 * database of its own; then RELAY_EVENTS committed events (an item.scanned-sized payload, spread over
 * 50 walls, no webhook subscriptions) appear at once, and the CPU used until the relay has published
 * them all is divided by their number. Redis is shared with whatever else runs: an upper bound.
 * RELAY_CONSUMERS=1 also runs the audit and stats workers (processes of their own) and measures them
 * until each has passed every relayed event (bench/pipeline-cpu.ts measures the whole pipeline per
 * scan+confirm pair); the events are then `sort-box-item.created` with an item (counted by the
 * statistics, at client scope: the bench's walls do not exist) of a client that exists.
 *
 * RELAY_WEBHOOKS=webhooks also runs that worker kind (`notifications` on versions before the rename)
 * with one subscription of the client to every event, answered 204 by a receiver in this process: one
 * delivery per event; use a few thousand events (RELAY_EVENTS), each delivery is an HTTP request.
 * RELAY_PROFILE_DIR=<dir> writes a V8 CPU profile of each worker process there (--cpu-prof).
 *
 *   RELAY_EVENTS (20000), RELAY_DATABASE (sorting_relay_bench), RELAY_CONSUMERS (0), RELAY_WEBHOOKS, RELAY_PROFILE_DIR, DATABASE_URL, REDIS_URL
 */

const ROOT = path.resolve(__dirname, '..');
const N = Number(process.env.RELAY_EVENTS ?? 20_000);
const DB = process.env.RELAY_DATABASE ?? 'sorting_relay_bench';
const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sorting');
base.pathname = `/${DB}`;
const databaseUrl = base.toString();
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `sorting-relay-bench-${process.pid}`;
const WITH_CONSUMERS = process.env.RELAY_CONSUMERS === '1';
const WEBHOOKS_KIND = process.env.RELAY_WEBHOOKS;
const CONSUMERS: string[] = [...(WITH_CONSUMERS ? ['audit', 'stats'] : []), ...(WEBHOOKS_KIND ? [WEBHOOKS_KIND] : [])];

async function redisCpuMs(redis: ReturnType<typeof createRedis>): Promise<number> {
  const info = await redis.info('cpu');
  const read = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (read('used_cpu_sys') + read('used_cpu_user')) * 1000;
}

async function backendsCpu(pg: PgClient, kind = 'outbox'): Promise<Map<number, number>> {
  const { rows } = await pg.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and application_name = $2', [DB, `sorting:worker:${kind}`]);
  const out = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = cpuMs(pid);
    if (ms !== undefined) out.set(pid, ms);
  }
  return out;
}

async function main(): Promise<void> {
  await ensureDatabase(databaseUrl);
  const orm = await initOrm(databaseUrl, 2);
  await migrate(orm);
  await orm.em.getConnection().execute('truncate outbox_event, audit_log, stats_counted_event, stats_hour, stats_day');
  await orm.em.getConnection().execute('delete from webhook_subscription');
  if (CONSUMERS.length) await orm.em.getConnection().execute(`insert into client (id, name, team) values (1, 'Relay bench', 'relay-bench') on conflict do nothing`);
  const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  if (WEBHOOKS_KIND) {
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await orm.em
      .getConnection()
      .execute(`insert into webhook_subscription (client_id, url, events, secret) values (1, ?, '{*}', ?)`, [url, `whsec_${Buffer.from('relay-bench-secret-32-bytes-long').toString('base64')}`]);
  }
  await orm.close();

  const env = { ...process.env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, LOG_LEVEL: 'info', NODE_ENV: 'production', JWT_SECRET: 'relay-bench-secret-not-for-production' };
  const outputs = new Map<string, string>();
  const start = (kind: string) => {
    const profile = process.env.RELAY_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.RELAY_PROFILE_DIR}/${kind}`] : [];
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'workers/main.ts', kind], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    outputs.set(kind, '');
    const add = (b: Buffer) => outputs.set(kind, outputs.get(kind) + b.toString());
    child.stdout!.on('data', add);
    child.stderr!.on('data', add);
    return child;
  };
  const relay = start('outbox');
  const consumers = CONSUMERS.map((kind) => ({ kind, child: start(kind) }));
  const output = () => outputs.get('outbox')!;
  const pg = new PgClient({ connectionString: databaseUrl });
  await pg.connect();
  const redis = createRedis(redisUrl);
  try {
    await pollUntil('the outbox relay to start', async () => output().includes('outbox relay started'), { timeoutMs: 60_000 });
    for (const c of consumers) await pollUntil(`the ${c.kind} worker to start`, async () => outputs.get(c.kind)!.includes(`worker '${c.kind}' started`), { timeoutMs: 60_000 });
    // Let it settle into its idle poll, so its start-up is not counted.
    await pollUntil('the relay to connect', async () => (await backendsCpu(pg)).size > 0, { timeoutMs: 10_000 });
    const item = {
      id: 123456, wallId: 1, crc: '8F3A', sorterBarcode: 'A-8F3A', position: 17, status: 'PendingConfirmation', units: 1, confirmedUnits: 0,
      orderId: 987654, orderItemId: 1234567, sku: 'SKU-000123', barcode: '012345678905', sorter: { id: 42, color: 'Blue' }, sessionId: 777,
    };
    const data = JSON.stringify(CONSUMERS.length ? { item: { ...item, userId: 42, barcodeInputMethod: 'Scanned', createdAt: new Date().toISOString() } } : item);
    const type = CONSUMERS.length ? 'sort-box-item.created' : 'item.scanned';
    const relayBefore = cpuMs(relay.pid)!;
    const backendsBefore = await backendsCpu(pg);
    const consumersBefore = await Promise.all(consumers.map(async (c) => ({ own: cpuMs(c.child.pid)!, pg: await backendsCpu(pg, c.kind) })));
    const redisBefore = await redisCpuMs(redis);
    const t0 = Date.now();
    await pg.query(
      `insert into outbox_event (event_id, client_id, wall_id, type, data)
       select gen_random_uuid(), 1, 1 + (g % 50), $3, $1::jsonb from generate_series(1, $2) g`,
      [data, N, type],
    );
    await pollUntil(
      'every event to be relayed',
      async () => {
        const { rows } = await pg.query<{ n: string }>('select count(*) as n from outbox_event where id > (select through from outbox_horizon)');
        return Number(rows[0]!.n) === 0;
      },
      { timeoutMs: 300_000 },
    );
    const seconds = (Date.now() - t0) / 1000;
    const relayMs = cpuMs(relay.pid)! - relayBefore;
    const pgSince = (before: Map<number, number>, after: Map<number, number>) => {
      let ms = 0;
      for (const [pid, v] of after) ms += v - (before.get(pid) ?? 0);
      return ms;
    };
    const pgMs = pgSince(backendsBefore, await backendsCpu(pg));
    // The consumers: until each has passed the last relayed event (its position in outbox_consumer),
    // and the webhooks have no delivery left.
    const consumerMs: Record<string, { worker: number; postgres: number; seconds: number }> = {};
    for (const [i, c] of consumers.entries()) {
      await pollUntil(
        `the ${c.kind} consumer to catch up`,
        async () => {
          const { rows } = await pg.query<{ done: boolean; pending: string }>(
            `select coalesce((select position from outbox_consumer where name = $1) >= (select through from outbox_horizon), false) as done,
                    (select count(*) from webhook_pending) as pending`,
            [c.kind === WEBHOOKS_KIND ? 'webhooks' : c.kind],
          );
          return rows[0]!.done && (c.kind !== WEBHOOKS_KIND || rows[0]!.pending === '0');
        },
        { timeoutMs: 600_000, intervalMs: 50 },
      );
      consumerMs[c.kind] = {
        worker: cpuMs(c.child.pid)! - consumersBefore[i]!.own,
        postgres: pgSince(consumersBefore[i]!.pg, await backendsCpu(pg, c.kind)),
        seconds: (Date.now() - t0) / 1000,
      };
    }
    const redisMs = (await redisCpuMs(redis)) - redisBefore;
    const per = (ms: number) => Math.round((ms / N) * 1000) / 1000;
    const result = {
      events: N,
      seconds: Math.round(seconds * 10) / 10,
      eventsPerSecond: Math.round(N / seconds),
      cpuMsPerEvent: { relay: per(relayMs), postgres: per(pgMs), redis: per(redisMs) },
      ...(CONSUMERS.length > 0 && {
        consumersCpuMsPerEvent: Object.fromEntries(
          Object.entries(consumerMs).map(([k, v]) => [k, { worker: per(v.worker), postgres: per(v.postgres), drainedAfterSeconds: Math.round(v.seconds * 10) / 10 }]),
        ),
        note2: 'with consumers, Redis CPU covers the relay and the consumers',
      }),
      note: `run ${randomUUID().slice(0, 8)}; Redis CPU includes anything else using that server`,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    for (const child of [relay, ...consumers.map((c) => c.child)]) {
      child.kill('SIGTERM');
      await pollUntil('the worker to exit', async () => child.exitCode !== null || child.signalCode !== null, { timeoutMs: 15_000 }).catch(() => child.kill('SIGKILL'));
    }
    await pg.end();
    let cursor = '0';
    do {
      const [next, keys] = await (redis as import('ioredis').Redis).scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
    receiver.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
