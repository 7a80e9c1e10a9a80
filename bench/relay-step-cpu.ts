import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client as PgClient } from 'pg';
import { SqlClient } from '../shared/db/sql-pool';
import { advanceHorizon } from '../workers/outbox/outbox.queries';
import { cpuMs } from './cpu-usage';

/*
 * `npx tsx bench/relay-step-cpu.ts`: PostgreSQL CPU per step of the outbox relay at one sorter's pace
 * (docs/benchmarks.md, "The pipeline at one sorter"): on a copy of a database the bench left, one
 * connection commits an event (autocommit, as a command's write), then the relay's connection takes one
 * step (`outbox-advance`, as workers/outbox/relay.use-case.ts sends it, with the memory it carries from
 * step to step), RELAY_STEPS times after a warm-up. The relay backend's CPU (/proc) per step, beside
 * `select 1` on the same connection (what a round trip costs the backend) and, RELAY_STEP_PREVIOUS=1,
 * the statement the relay sent before its step became one call (a CTE taking the lock, joined laterally
 * to outbox_relay_step, sorted), which the schema still has. Each variant on a copy of its own.
 *
 * RELAY_STEP_PREPARED=0: unnamed statements, as DATABASE_PREPARED_STATEMENTS=false sends them.
 *
 *   RELAY_STEP_SOURCE (sorting_bench_badday), RELAY_STEPS (2000), RELAY_STEP_ROUNDS (3), RELAY_STEP_PREVIOUS, RELAY_STEP_PREPARED (1), DATABASE_URL (the server)
 */

const SOURCE = process.env.RELAY_STEP_SOURCE ?? 'sorting_bench_badday';
const STEPS = Number(process.env.RELAY_STEPS ?? 2000);
const ROUNDS = Number(process.env.RELAY_STEP_ROUNDS ?? 3);
const WARMUP = 100;
/** As DATABASE_PREPARED_STATEMENTS: named prepared statements (the default), or unnamed ones planned at every call (PgBouncer before 1.21). */
const PREPARED = process.env.RELAY_STEP_PREPARED !== '0';
const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const at = (db: string) => Object.assign(new URL(server.href), { pathname: `/${db}` }).href;

/** The relay's statement before Migration20261203060000_relay_step_one_call. */
const PREVIOUS = `
with relay_lock as (select pg_try_advisory_xact_lock(hashtext('outbox-relay')) as locked,
                          set_config('sorting.relay_notify', $6::text, true) as notify)
select l.locked, s.before::text, s.through::text, s.next_candidate::text, s.next_holders, s.next_gap::text,
       (s.ev).id::text as id, (s.ev).event_id, (s.ev).type, (s.ev).occurred_at, (s.ev).client_id, (s.ev).wall_id, (s.ev).data
  from relay_lock l
  left join lateral outbox_relay_step(l.locked, $1::bigint, $2::text[], $3::bigint, $4::bigint, $5::int) s on true
 order by (s.ev).id`;

type Variant = 'select 1' | 'outbox-advance' | 'previous';

async function round(variant: Variant): Promise<number> {
  const copy = `${SOURCE}_relay_step`;
  const admin = new PgClient({ connectionString: at('postgres') });
  await admin.connect();
  await admin.query(`drop database if exists "${copy}"`);
  await admin.query(`create database "${copy}" template "${SOURCE}"`);
  const writer = new PgClient({ connectionString: at(copy) });
  const relay = new PgClient({ connectionString: at(copy) });
  try {
    await Promise.all([writer.connect(), relay.connect()]);
    const [{ pid }] = (await relay.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
    const db = new SqlClient(relay, PREPARED);
    type Memory = { candidate: string | null; holders: string[] | null; gap: string | null };
    type StepRow = { locked: boolean; through: string | null; next_candidate: string | null; next_holders: string[] | null; next_gap: string | null };
    let memory: Memory = { candidate: null, holders: null, gap: null };
    let after: string | null = (await relay.query<{ through: string }>('select through::text from outbox_horizon')).rows[0]?.through ?? '0';
    let cpu0 = 0;
    for (let k = 0; k < STEPS + WARMUP; k++) {
      if (k === WARMUP) cpu0 = cpuMs(pid)!;
      await writer.query(`insert into outbox_event (event_id, client_id, wall_id, type, data) values ($1, 1, 1, 'sort-box-item.created', '{"units":1}')`, [randomUUID()]);
      if (variant === 'select 1') {
        await relay.query('select 1');
        continue;
      }
      const params: Memory & { after: string | null; batchSize: number; notify: 'off' } = { ...memory, after, batchSize: 500, notify: 'off' };
      const rows: StepRow[] =
        variant === 'outbox-advance'
          ? await advanceHorizon(db, params)
          : (await relay.query({ ...(PREPARED ? { name: 'previous' } : {}), text: PREVIOUS, values: [params.candidate, params.holders, params.gap, params.after, params.batchSize, params.notify] })).rows;
      const row: StepRow = rows[0]!;
      if (!row.locked) throw new Error('another relay holds the relay lock on the copy');
      memory = { candidate: row.next_candidate, holders: row.next_holders, gap: row.next_gap };
      after = row.through;
    }
    return (cpuMs(pid)! - cpu0) / STEPS;
  } finally {
    await Promise.all([writer.end().catch(() => undefined), relay.end().catch(() => undefined)]);
    await admin.query(`drop database if exists "${copy}"`);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const variants: Variant[] = ['select 1', 'outbox-advance', ...(process.env.RELAY_STEP_PREVIOUS === '1' ? (['previous'] as const) : [])];
  const results = new Map<Variant, number[]>(variants.map((v) => [v, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of variants) {
      const ms = await round(v);
      results.get(v)!.push(ms);
      process.stdout.write(`round ${r + 1}, ${v}: ${ms.toFixed(3)} ms of the relay backend's CPU per step\n`);
    }
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  process.stdout.write(`${SOURCE}, ${STEPS} steps a round, ${PREPARED ? 'prepared' : 'unnamed'} statements, load ${load}:\n`);
  for (const [v, ms] of results) process.stdout.write(`  ${v.padEnd(15)} ${ms.map((m) => m.toFixed(3)).join(', ')} ms per step\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
