import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { Client as PgClient } from 'pg';
import request from 'supertest';
import type { CommandHandlers, CommandJobInfo } from '../../shared/commands/command-job';
import type { CommandPayloads } from '../../shared/commands/commands';
import { startPartitionHost } from '../../shared/commands/partition-host';
import { commandQueueName, partitionOf } from '../../shared/commands/partitioning';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { scanItem } from '../../workers/sorting/use-cases/scan-item.use-case';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';

/*
 * Group commit (docs/architecture.md "Group commit"): the commands waiting for a wall when its turn
 * comes are decided one after the other in memory and written in one transaction, each answered once it
 * committed. The wall actors are the sorting worker's own, with no sorting worker running; the commands
 * are handed to them together, as a partition's worker hands over the jobs it took at once (the last
 * case: through the partition queue and its worker).
 */

jest.setTimeout(90_000);

describe('group commit', () => {
  let api: TestApi;
  let floor: Floor;
  let sorter: { auth: string; userId: number };
  let token: string;
  let holder: CommandHandlers;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  const db = () => api.runtime.orm.em.fork();
  let jobs = 0;
  const job = (redelivered = false): CommandJobInfo => ({
    commandId: randomUUID(),
    partition: partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS),
    jobId: ++jobs,
    ...(redelivered ? { redelivered } : {}),
  });
  const scan = (info: CommandJobInfo) =>
    holder['item.scan'](
      { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], sessionToken: token, barcode: 'SKU-A', barcodeInputMethod: 'Scanned', idempotencyKey: null },
      info,
    );
  const uuids = (infos: CommandJobInfo[]) => `{${infos.map((i) => i.commandId).join(',')}}`;
  /** The transaction (xmin) that wrote each command's applied record, in the order of `infos`. */
  const writtenBy = async (infos: CommandJobInfo[]) => {
    const rows = await db().execute<{ command_id: string; tx: string }[]>('select command_id, xmin::text as tx from applied_command where command_id = any(?::uuid[])', [
      uuids(infos),
    ]);
    const tx = new Map(rows.map((r) => [r.command_id, r.tx]));
    return infos.map((i) => tx.get(i.commandId));
  };
  const remaining = (answers: Awaited<ReturnType<typeof scan>>[]) => answers.map((a) => (a.ok ? a.value.remainingUnits : a.problem.code));

  beforeEach(async () => {
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 10 }] }] });
    sorter = await floor.sorter(1);
    holder = sortingHandlers(new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS));
    const start: CommandPayloads['session.start'] = { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], picklistId: null };
    const session = await holder['session.start'](start, job());
    if (!session.ok) throw new Error(`connect refused: ${session.problem.code}`);
    token = session.value.token;
  });

  it('commands waiting together are decided in queue order and written in one transaction, each with its own answer', async () => {
    const infos = Array.from({ length: 5 }, () => job());
    const answers = await Promise.all(infos.map((i) => scan(i)));
    expect(remaining(answers)).toEqual([9, 8, 7, 6, 5]);
    const ids = answers.map((a) => (a.ok ? a.value.id : null));
    expect(new Set(ids).size).toBe(5);
    const tx = await writtenBy(infos);
    expect(tx.every((t) => t !== undefined && t === tx[0])).toBe(true);
    // The events follow the queue order; the wall's version moved once per command.
    const events = await db().execute<{ item: number }[]>(
      `select (data->'item'->>'id')::int as item from outbox_event where wall_id = ? and type = 'sort-box-item.created' order by id`,
      [floor.wallId],
    );
    expect(events.map((e) => e.item)).toEqual(ids);
    const [line] = await db().execute<{ pending_qty: number }[]>('select pending_qty from order_item where client_id = ?', [floor.tenant.clientId]);
    expect(line!.pending_qty).toBe(5);
  });

  it('a group that meets a conflict changes nothing: each command is decided again alone, from the database, and answered once', async () => {
    const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
    const infos = Array.from({ length: 3 }, () => job());
    let answers: Promise<Awaited<ReturnType<typeof scan>>[]> | undefined;
    try {
      // The group's first fence waits at the wall's row while an outside writer moves the version.
      await pg.query('begin');
      await pg.query('select id from wall where id = $1 for update', [floor.wallId]);
      answers = Promise.all(infos.map((i) => scan(i)));
      await waitFor(
        async () =>
          (await db().execute<{ query: string }[]>(`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).some((r) =>
            r.query.includes('apply-wall-changes'),
          ),
        { timeoutMs: 20_000, what: "the group's write to wait at the fence" },
      );
      await pg.query('update wall set version = version + 1 where id = $1', [floor.wallId]);
      await pg.query('commit');
    } finally {
      await pg.end();
    }
    expect(remaining(await answers!)).toEqual([9, 8, 7]);
    const tx = await writtenBy(infos);
    expect(new Set(tx).size).toBe(3);
    expect(tx.every((t) => t !== undefined)).toBe(true);
    const [counts] = await db().execute<{ items: string; applied: string }[]>(
      'select (select count(*) from sort_box_item where wall_id = ?) as items, (select count(*) from applied_command where command_id = any(?::uuid[])) as applied',
      [floor.wallId, uuids(infos)],
    );
    expect(counts).toEqual({ items: '3', applied: '3' });
  });

  it('a command of a group whose write fails does not fail its neighbours: each is written again alone, the bad one answered with its own error', async () => {
    const infos = Array.from({ length: 3 }, () => job());
    const actors = new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS);
    const own = sortingHandlers(actors);
    const payload: CommandPayloads['item.scan'] = {
      clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], sessionToken: token, barcode: 'SKU-A', barcodeInputMethod: 'Scanned', idempotencyKey: null,
    };
    // The wall in this holder's memory first (a lone command), so the three below wait together.
    const warm = await own['item.scan'](payload, job());
    expect(warm.ok).toBe(true);
    // The second decides a scan like the others, then adds an event PostgreSQL refuses (an id that is no uuid).
    const first = own['item.scan'](payload, infos[0]!);
    const bad = actors.run({
      name: 'item.scan',
      payload,
      job: infos[1]!,
      useCase: async (ctx) => {
        const value = await scanItem(ctx, payload);
        ctx.changes.events.push({ ...ctx.changes.events[0]!, eventId: 'not-a-uuid' });
        return value;
      },
    });
    const third = own['item.scan'](payload, infos[2]!);
    const badOutcome = await bad.then(
      (o) => (o.ok ? 'applied' : o.problem.code),
      (err: Error) => `failed: ${err.message}`,
    );
    expect(badOutcome).toMatch(/^failed: .*uuid/);
    expect(remaining([await first, await third])).toEqual([8, 7]);
    const tx = await writtenBy(infos);
    expect(tx[1]).toBeUndefined();
    expect(tx[0]).toBeDefined();
    expect(tx[2]).toBeDefined();
    expect(tx[0]).not.toBe(tx[2]);
    const [counts] = await db().execute<{ items: string }[]>('select count(*) as items from sort_box_item where wall_id = ?', [floor.wallId]);
    expect(counts!.items).toBe('3');
  });

  it('a command after the first of a group that must read the database is decided after the group is written, in its place', async () => {
    // An unknown barcode is looked up in the database: the second command is decided alone, after the first, before the third.
    const infos = Array.from({ length: 3 }, () => job());
    const unknown = holder['item.scan'](
      { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], sessionToken: token, barcode: 'NO-SUCH-CODE', barcodeInputMethod: 'Scanned', idempotencyKey: null },
      infos[1]!,
    );
    const [first, third] = [scan(infos[0]!), scan(infos[2]!)];
    expect(remaining([await first, await unknown, await third])).toEqual([9, 'barcode-not-recognized', 8]);
    const refused = await db().execute<{ id: string; command: string }[]>(`select id, data->>'command' as command from outbox_event where wall_id = ? and type = 'command.refused'`, [floor.wallId]);
    expect(refused).toHaveLength(1);
  });

  it('jobs handed out again after a stall, which come back in reverse order, are decided in queue order', async () => {
    const infos = Array.from({ length: 3 }, () => job(true));
    const answers = await Promise.all([...infos].reverse().map((i) => scan(i)));
    expect(remaining(answers.reverse())).toEqual([9, 8, 7]);
  });

  it('through the partition queue: the jobs of a wall its worker holds at once are written in one transaction, in queue order', async () => {
    const { config } = api.runtime;
    const actors = new WallActors(actorDeps(api.runtime), config.QUEUE_PARTITIONS);
    const host = await startPartitionHost(api.runtime.queueSettings, sortingHandlers(actors), { log: api.runtime.log, leaseTtlMs: 5_000, dropped: (p) => actors.dropPartition(p) });
    const redis = new IORedis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
    const pg = new PgClient({ connectionString: config.DATABASE_URL });
    await pg.connect();
    const send = () => request(api.app).post('/api/v1/sort-box-items').set('Authorization', sorter.auth).send({ sessionToken: token, barcode: 'SKU-A' });
    try {
      await waitFor(() => host.partitions().length === config.QUEUE_PARTITIONS, { timeoutMs: 20_000, what: 'the partitions held' });
      const active = `${config.QUEUE_PREFIX}:${commandQueueName(partitionOf(floor.wallId, config.QUEUE_PARTITIONS))}:active`;
      // The first scan's write waits at the wall's row; five more are taken by the worker meanwhile.
      await pg.query('begin');
      await pg.query('select id from wall where id = $1 for update', [floor.wallId]);
      const first = send().then((r) => r);
      await waitFor(
        async () =>
          (await db().execute<{ query: string }[]>(`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).some((r) =>
            r.query.includes('apply-wall-changes'),
          ),
        { timeoutMs: 20_000, what: "the first scan's write to wait at the fence" },
      );
      const rest = Array.from({ length: 5 }, () => send().then((r) => r));
      await waitFor(async () => (await redis.llen(active)) === 6, { timeoutMs: 20_000, what: 'six jobs of the wall in hand' });
      await pg.query('commit');
      const answers = await Promise.all([first, ...rest]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      await pg.end();
      redis.disconnect();
      await host.close();
    }
    const rows = await db().execute<{ job_id: string; tx: string; remaining: number }[]>(
      `select job_id, xmin::text as tx, (result->>'remainingUnits')::int as remaining from applied_command where wall_id = ? and name = 'item.scan' order by job_id::bigint`,
      [floor.wallId],
    );
    // In queue order (job ids), each scan took the next unit; the five taken while the first waited share one transaction.
    expect(rows.map((r) => r.remaining)).toEqual([9, 8, 7, 6, 5, 4]);
    expect(new Set(rows.slice(1).map((r) => r.tx)).size).toBe(1);
    expect(rows[0]!.tx).not.toBe(rows[1]!.tx);
  });
});
