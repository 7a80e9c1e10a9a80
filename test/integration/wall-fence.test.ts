import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import type { CommandHandlers, CommandJobInfo } from '../../shared/commands/command-job';
import type { CommandPayloads } from '../../shared/commands/commands';
import { partitionOf } from '../../shared/commands/partitioning';
import { applyWallChanges } from '../../workers/sorting/queries/wall-write.queries';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';

/*
 * The fence (docs/architecture.md "One write per command, fenced"): every write of a wall's state
 * holds only if the wall still has the version its decision was made against. Two holders of one wall
 * (after a stall or a failover) are played here by two sets of wall actors in one process, with no
 * sorting worker running: each decides from its own memory, and the one whose memory is behind must
 * decide again from the database instead of writing what it decided.
 */

describe('the wall fence', () => {
  let api: TestApi;
  let floor: Floor;
  let sorter: { auth: string; userId: number };
  let token: string;
  let holderA: CommandHandlers;
  let holderB: CommandHandlers;

  beforeAll(async () => {
    api = await startTestApi(); // no sorting worker: the two holders below are the only deciders
  });
  afterAll(async () => {
    await api?.close();
  });

  const db = () => api.runtime.orm.em.fork();
  let jobs = 0;
  const job = (): CommandJobInfo => ({ commandId: randomUUID(), partition: partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS), jobId: ++jobs });
  const scan = (h: CommandHandlers): ReturnType<CommandHandlers['item.scan']> =>
    h['item.scan'](
      { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], sessionToken: token, barcode: 'SKU-A', barcodeInputMethod: 'Scanned', idempotencyKey: null },
      job(),
    );
  const line = async () =>
    (await db().execute<{ qty: number; pending_qty: number; confirmed_qty: number }[]>('select qty, pending_qty, confirmed_qty from order_item where client_id = ?', [floor.tenant.clientId]))[0]!;
  const version = async () => Number((await db().execute<{ version: string }[]>('select version from wall where id = ?', [floor.wallId]))[0]!.version);
  const itemCount = async () => Number((await db().execute<{ n: string }[]>('select count(*) as n from sort_box_item where client_id = ?', [floor.tenant.clientId]))[0]!.n);

  beforeEach(async () => {
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    sorter = await floor.sorter(1);
    holderA = sortingHandlers(new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS));
    holderB = sortingHandlers(new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS));
    const start: CommandPayloads['session.start'] = { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], picklistId: null };
    const session = await holderA['session.start'](start, job());
    if (!session.ok) throw new Error(`connect refused: ${session.problem.code}`);
    token = session.value.token;
  });

  it('a write against a version the wall no longer has changes nothing and raises 40001', async () => {
    const v = await version();
    const now = new Date();
    const err = await applyWallChanges(api.runtime.sqlPool(), {
      clientId: floor.tenant.clientId, wallId: floor.wallId, expectedVersion: v - 1, nextVersion: v, wall: JSON.stringify({ name: 'Stale', isActive: false, maxSorters: 1, warehouseId: null, workflow: 'FreeSort', flowDirection: 'LeftToRight', segmentRows: null, segmentColumns: null }),
      lines: '[]', lineCount: 0, slotsVacated: '[]', slotsOccupied: '[]', slotsInserted: '[]', slotsDeleted: [floor.slots[0]!.id], sessionsUpdated: '[]', sessionsInserted: '[]',
      itemsUpdated: '[]', itemsInserted: '[]', events: JSON.stringify([{ eventId: randomUUID(), clientId: floor.tenant.clientId, wallId: floor.wallId, type: 'wall.updated', occurredAt: now, data: {} }]),
      commandId: randomUUID(), command: 'wall.update', partition: 0, jobId: 1, result: '{}', now, idempotency: null, itemIdRefill: 0, sessionIdRefill: 0,
    }).then(() => null, (e: unknown) => e as { code: string; detail: string });
    expect(err).toMatchObject({ code: '40001', detail: 'wall-version' });
    expect(await version()).toBe(v);
    const [wall] = await db().execute<{ name: string; slots: string; events: string }[]>(
      `select w.name, (select count(*) from sort_box where wall_id = w.id) as slots, (select count(*) from outbox_event where wall_id = w.id and type = 'wall.updated') as events from wall w where w.id = ?`,
      [floor.wallId],
    );
    expect(wall).toEqual({ name: expect.not.stringMatching(/^Stale$/), slots: '4', events: '0' });
  });

  it('a second holder with a stale version cannot write its decision (its fence and the line guard): it decides again from the database', async () => {
    // Both holders know the wall: A put order 1 into slot 1 (one unit pending), B loaded after that.
    expect(await scan(holderA)).toMatchObject({ ok: true, value: { orderId: 1, position: 1, remainingUnits: 1 } });
    const loaded = await holderB['session.expire']({ clientId: floor.tenant.clientId, wallId: floor.wallId, sessionId: 2_000_000_000 }, job());
    expect(loaded).toEqual({ ok: true, value: null });
    // A takes the last unit; B still believes order 1 needs one.
    expect(await scan(holderA)).toMatchObject({ ok: true, value: { orderId: 1, remainingUnits: 0 } });
    const stale = await scan(holderB);
    expect(stale).toMatchObject({ ok: false, problem: { code: 'no-fulfillable-order' } });
    expect(await line()).toEqual({ qty: 2, pending_qty: 2, confirmed_qty: 0 });
    expect(await itemCount()).toBe(2);
  });

  it('a second holder that missed the end of a session cannot scan on it: the fence alone stops it', async () => {
    const loaded = await holderB['session.expire']({ clientId: floor.tenant.clientId, wallId: floor.wallId, sessionId: 2_000_000_000 }, job());
    expect(loaded).toEqual({ ok: true, value: null });
    const stop: CommandPayloads['session.stop'] = { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], token };
    expect(await holderA['session.stop'](stop, job())).toMatchObject({ ok: true, value: { status: 'Ended', endReason: 'Stopped' } });
    // B's memory still has the session connected and order 1's line untouched: only the version tells.
    expect(await scan(holderB)).toMatchObject({ ok: false, problem: { code: 'session-ended' } });
    expect(await itemCount()).toBe(0);
    expect(await line()).toEqual({ qty: 2, pending_qty: 0, confirmed_qty: 0 });
  });

  it("a stalled holder's decision is decided again when the wall changed while its write waited", async () => {
    expect(await scan(holderA)).toMatchObject({ ok: true });
    const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
    try {
      // The write of A's next scan waits at its fence while another writer changes the wall and commits.
      await pg.query('begin');
      await pg.query('select id from wall where id = $1 for update', [floor.wallId]);
      const answer = scan(holderA);
      await waitFor(
        async () =>
          (await db().execute<{ query: string }[]>(`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).some((r) =>
            r.query.includes('apply-wall-changes'),
          ),
        { timeoutMs: 20_000, what: "A's write to wait at the fence" },
      );
      await pg.query('update wall set is_active = false where id = $1', [floor.wallId]);
      await pg.query('commit');
      expect(await answer).toMatchObject({ ok: false, problem: { code: 'wall-inactive' } });
    } finally {
      await pg.end();
    }
    expect(await line()).toEqual({ qty: 2, pending_qty: 1, confirmed_qty: 0 });
    expect(await itemCount()).toBe(1);
  });

  it('a command applied by another delivery of its job is answered as applied by a holder that loads the wall afresh, never refused on top', async () => {
    // A scan takes the first of order 1's two units. B applies a second scan, the last unit, as the
    // stalled check's copy of its job; then that job's first delivery, still waiting in a holder that
    // forgot the wall (its partition handed back), runs on a fresh load: no unit is left to give it.
    expect(await scan(holderA)).toMatchObject({ ok: true, value: { orderId: 1 } });
    const first = job();
    const payload: CommandPayloads['item.scan'] = {
      clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], sessionToken: token, barcode: 'SKU-A', barcodeInputMethod: 'Scanned', idempotencyKey: null,
    };
    const applied = await holderB['item.scan'](payload, { ...first, redelivered: true });
    expect(applied).toMatchObject({ ok: true, value: { orderId: 1 } });
    const fresh = sortingHandlers(new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS));
    expect(await fresh['item.scan'](payload, first)).toEqual(applied);
    const refused = await db().execute<{ n: string }[]>(`select count(*) as n from outbox_event where wall_id = ? and type = 'command.refused'`, [floor.wallId]);
    expect(Number(refused[0]!.n)).toBe(0);
    expect(await itemCount()).toBe(2);
  });

  it('a partition handed back while a command of its wall runs keeps the wall\'s actor until it is done: the next command waits behind it', async () => {
    const actors = new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS);
    // Decisions of the wall counted from a command's first use-case call to its answer.
    const deciding = { now: 0, most: 0, order: [] as number[] };
    const run = actors.run.bind(actors);
    actors.run = ((command: Parameters<WallActors['run']>[0]) => {
      let began = false;
      const useCase: typeof command.useCase = (ctx) => {
        if (!began) {
          began = true;
          deciding.most = Math.max(deciding.most, ++deciding.now);
          deciding.order.push(command.job.jobId);
        }
        return command.useCase(ctx);
      };
      return run({ ...command, useCase }).finally(() => {
        if (began) deciding.now--;
      });
    }) as WallActors['run'];
    const holder = sortingHandlers(actors);
    const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
    let first: ReturnType<typeof scan> | undefined;
    let second: ReturnType<typeof scan> | undefined;
    try {
      await pg.query('begin');
      await pg.query('select id from wall where id = $1 for update', [floor.wallId]);
      first = scan(holder);
      await waitFor(
        async () =>
          (await db().execute<{ query: string }[]>(`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).some((r) =>
            r.query.includes('apply-wall-changes'),
          ),
        { timeoutMs: 20_000, what: 'the first write to wait at the fence' },
      );
      actors.dropPartition(partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS));
      expect(actors.held()).toEqual({ actors: 1, commands: 1 });
      second = scan(holder);
      // The second command is either queued behind the first in the same actor, or (an actor deleted
      // mid-command) decided by a new one beside it.
      await waitFor(() => actors.held().commands === 2 || deciding.order.length === 2, { timeoutMs: 20_000, what: 'the second command to be taken' });
      await pg.query('commit');
    } finally {
      await pg.end();
    }
    expect(await first).toMatchObject({ ok: true, value: { orderId: 1, remainingUnits: 1 } });
    expect(await second).toMatchObject({ ok: true, value: { orderId: 1, remainingUnits: 0 } });
    expect(deciding).toEqual({ now: 0, most: 1, order: [jobs - 1, jobs] });
    expect(await line()).toEqual({ qty: 2, pending_qty: 2, confirmed_qty: 0 });
    // Once done, the actor of the dropped partition is gone; the next command loads the wall afresh.
    await waitFor(() => actors.held().actors === 0, { timeoutMs: 5_000, what: 'the actor to be removed once idle' });
    expect(await scan(holder)).toMatchObject({ ok: false, problem: { code: 'no-fulfillable-order' } });
  });
});
