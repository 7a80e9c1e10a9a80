import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { Client as PgClient } from 'pg';
import { parseWallEventMessage, wallEventsChannel, type WallEvent } from '../../shared/events/channels';
import { query, type SqlRunner } from '../../shared/db/named-sql';
import { consumeOnce, eventConsumer, runConsumer, type EventConsumer } from '../../workers/pipeline/consumer-runner';
import { EVENT_CONSUMERS } from '../support/event-consumers';
import { listenForNotifications, RELAYED_CHANNEL } from '../../workers/pipeline/notifications';
import { registerConsumer } from '../../workers/pipeline/consumer.queries';
import { Relay, relayOnce } from '../../workers/outbox/relay.use-case';
import { claimMaintenanceRun } from '../../workers/sweeper/sweep.queries';
import { consumeAll, relayAll } from '../support/pipeline';
import { sampleData } from '../support/event-samples';
import { isKnownEventType } from '../../shared/events/event-schemas';
import { newTenant, startTestApi, waitFor, type TestApi } from '../support/test-api';

/*
 * The event pipeline's transport: the relay stamps committed events with their relay order and
 * publishes the public ones; each consumer reads the outbox from its position in PostgreSQL, moved in
 * the transaction of its effect; a poison event is recorded and passed over; the audit consumer records
 * each event once; the sweeper's interval is given to one process by PostgreSQL.
 */

const recordEffect = query<{ consumer: string; ids: string[] }>(
  'test-consumer-effect',
  'insert into test_consumer_effect (consumer, event_id) select :consumer::text, unnest(:ids::uuid[])',
);

describe('event pipeline: relay order, consumer positions, poison events, audit records', () => {
  let api: TestApi;
  beforeAll(async () => {
    // The back-up poll is a minute: an event relayed within seconds was woken by NOTIFY.
    api = await startTestApi({ workers: ['outbox'], env: { OUTBOX_POLL_MS: '60000' } });
    await api.runtime.orm.em.fork().execute('create table if not exists test_consumer_effect (consumer text not null, event_id uuid not null, at timestamptz default clock_timestamp())');
  });
  afterAll(async () => {
    await api.runtime.orm.em.fork().execute('drop table if exists test_consumer_effect');
    await api.close();
  });
  const em = () => api.runtime.orm.em.fork();
  const insertEvents = (clientId: number, wallId: number, types: string[]) => {
    const ids = types.map(() => randomUUID());
    return em()
      .execute(
        `insert into outbox_event (event_id, client_id, wall_id, type, data) select e.id, ?, ?, e.type, e.data from jsonb_to_recordset(?::jsonb) as e(id uuid, type text, data jsonb)`,
        [clientId, wallId, JSON.stringify(types.map((type, i) => ({ id: ids[i], type, data: isKnownEventType(type) ? sampleData(type) : {} })))],
      )
      .then(() => ids);
  };
  /** A consumer whose effect is a row per event in test_consumer_effect, in its transaction. */
  const recording = (name: string, fail?: (e: WallEvent) => boolean, types?: string[]): EventConsumer =>
    eventConsumer(
      name,
      async (events: WallEvent[], tx: SqlRunner) => {
        for (const e of events) if (fail?.(e)) throw new Error(`cannot take ${e.id}`);
        await recordEffect(tx, { consumer: name, ids: events.map((e) => e.id) });
      },
      types,
    );
  const effects = async (consumer: string) =>
    (await em().execute<{ event_id: string }[]>('select event_id from test_consumer_effect where consumer = ? order by at', [consumer])).map((r) => r.event_id);

  it('the relay wakes on NOTIFY, moves the horizon past the committed events, and publishes them with their outbox id, in id order', async () => {
    const t = await newTenant(api, 'Relay');
    const wallId = 1_000_000 + t.clientId;
    const prefix = api.runtime.config.QUEUE_PREFIX;
    const sub = new IORedis(api.runtime.config.REDIS_URL);
    const seen: { outboxId: bigint | null; event: WallEvent }[] = [];
    sub.on('message', (_c, m) => {
      const { outboxId, raw } = parseWallEventMessage(m);
      seen.push({ outboxId, event: JSON.parse(raw) as WallEvent });
    });
    await sub.subscribe(wallEventsChannel(prefix, wallId));
    try {
      const [refused, started] = await insertEvents(t.clientId, wallId, ['command.refused', 'session.started']);
      const [later] = await insertEvents(t.clientId, wallId, ['wall.updated']);
      // The back-up poll is a minute away: only NOTIFY can make this quick.
      await waitFor(() => seen.length >= 3, { what: 'the hub events', timeoutMs: 5000 });
      // Every event, internal ones too: hubs show refusals (docs/api.md §8).
      expect(seen.map((s) => [s.event.id, s.event.type])).toEqual([[refused, 'command.refused'], [started, 'session.started'], [later, 'wall.updated']]);
      const rows = await em().execute<{ id: string; event_id: string; relayed: boolean }[]>(
        'select id, event_id, id <= (select through from outbox_horizon) as relayed from outbox_event where event_id in (?) order by id',
        [[refused, started, later]],
      );
      expect(rows.map((r) => r.event_id)).toEqual([refused, started, later]);
      // Relayed in id order (per wall the commit order), below the horizon.
      expect(rows.every((r) => r.relayed)).toBe(true);
      expect(seen.map((s) => s.outboxId)).toEqual(rows.map((r) => BigInt(r.id)));
      // A relay that takes over publishes its predecessor's last seconds again (hubs drop what they sent).
      let taken: string[] = [];
      const successor = new Relay(api.runtime.ormSql);
      await waitFor(async () => {
        const step = await successor.step();
        taken = step.republish.map((e) => e.event.id);
        return step.locked;
      }, { what: 'the successor relay active' });
      expect(taken).toEqual(expect.arrayContaining([started, later]));
    } finally {
      sub.disconnect();
    }
  });

  it('an event committed out of id order is neither skipped nor reordered per wall: the horizon waits for the transaction that holds the lower id', async () => {
    const t = await newTenant(api, 'Out of order');
    const [wallA, wallB] = [2_000_000 + t.clientId, 3_000_000 + t.clientId];
    const name = `test-${randomUUID().slice(0, 8)}`;
    await registerConsumer(api.runtime.ormSql, { name });
    const seen: string[] = [];
    const inOrder = eventConsumer(name, async (events) => {
      seen.push(...events.filter((e) => e.clientId === t.clientId).map((e) => e.id));
    });
    const slow = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await slow.connect();
    const insertOn = async (wallId: number) => {
      const id = randomUUID();
      const { rows } = await slow.query<{ id: string }>(
        `insert into outbox_event (event_id, client_id, wall_id, type, data) values ($1, $2, $3, 'wall.updated', $4::jsonb) returning id`,
        [id, t.clientId, wallId, JSON.stringify(sampleData('wall.updated'))],
      );
      return { id, outboxId: rows[0]!.id };
    };
    try {
      // A transaction takes the lower id and stays open while another wall's event, with a higher id, commits.
      await slow.query('begin');
      const { id: first, outboxId: firstId } = await insertOn(wallA);
      const [other] = await insertEvents(t.clientId, wallB, ['wall.updated']);
      // The relay steps on (this test's and the API's own): the horizon stays below the open transaction's id.
      const relay = new Relay(api.runtime.ormSql);
      for (let i = 0; i < 5; i++) await relay.step();
      const [{ through }] = await em().execute<{ through: string }[]>('select through from outbox_horizon');
      expect(BigInt(through)).toBeLessThan(BigInt(firstId));
      await consumeAll(api.runtime, inOrder);
      expect(seen).toEqual([]);
      // The same transaction writes its wall's next event (after the other's id) and commits.
      const { id: next } = await insertOn(wallA);
      await slow.query('commit');
      await relayAll(api.runtime);
      await consumeAll(api.runtime, inOrder);
      // Each event once, in id order: the wall's two in their order, none skipped.
      expect(seen).toEqual([first, other, next]);
      await relayAll(api.runtime);
      await consumeAll(api.runtime, inOrder);
      expect(seen).toEqual([first, other, next]);
    } finally {
      await slow.query('rollback').catch(() => undefined);
      await slow.end();
    }
  });

  it('one relay at a time: a stand-by moves nothing while the active one holds the lock', async () => {
    const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
    try {
      await pg.query('begin');
      await pg.query(`select pg_advisory_xact_lock(hashtext('outbox-relay'))`);
      expect(await relayOnce(api.runtime.ormSql)).toEqual({ locked: false, events: [] });
      await pg.query('commit');
      await waitFor(async () => (await relayOnce(api.runtime.ormSql)).locked, { what: 'the relay lock' });
    } finally {
      await pg.end();
    }
  });

  it('a consumer applies each batch with its position: a crash rolls both back, a second instance is a stand-by, a filter passes the others over', async () => {
    const t = await newTenant(api, 'Consumer');
    const name = `test-${randomUUID().slice(0, 8)}`;
    await registerConsumer(api.runtime.ormSql, { name });
    const ids = await insertEvents(t.clientId, 7, ['session.started', 'wall.updated', 'sort-box.completed', 'wall.updated']);
    await relayAll(api.runtime);
    // Crashes after its effect: nothing stays, the position does not move.
    await expect(
      consumeOnce(api.runtime.ormSql, { ...recording(name), handle: async (b, tx, ctx) => {
        await recording(name).handle(b, tx, ctx);
        throw new Error('crash before the commit');
      } }, 2, api.runtime),
    ).rejects.toThrow('crash before the commit');
    expect(await effects(name)).toEqual([]);
    // While another instance holds the position (its batch under way), this one is a stand-by.
    const holder = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`select position from outbox_consumer where name = $1 for update`, [name]);
      expect((await consumeOnce(api.runtime.ormSql, recording(name), 2, api.runtime)).status).toBe('standby');
      await holder.query('commit');
    } finally {
      await holder.end();
    }
    expect(await effects(name)).toEqual([]);
    expect((await consumeOnce(api.runtime.ormSql, recording(name), 2, api.runtime)).status).toBe('done');
    await consumeAll(api.runtime, recording(name), 2);
    expect(await effects(name)).toEqual(ids);
    expect((await consumeOnce(api.runtime.ormSql, recording(name), 2, api.runtime)).status).toBe('idle');

    // With a filter: only its types reach it, and its position still passes the others.
    const filtered = `test-${randomUUID().slice(0, 8)}`;
    const more = await insertEvents(t.clientId, 7, ['wall.updated', 'sort-box.completed', 'wall.updated']);
    await em().execute('insert into outbox_consumer (name, position) select ?, position from outbox_consumer where name = ?', [filtered, name]);
    await relayAll(api.runtime);
    await consumeAll(api.runtime, recording(filtered, undefined, ['sort-box.completed']));
    expect(await effects(filtered)).toEqual([more[1]]);
    const [{ position }] = await em().execute<{ position: string }[]>('select position from outbox_consumer where name = ?', [filtered]);
    const [{ seq }] = await em().execute<{ seq: string }[]>('select id as seq from outbox_event where event_id = ?', [more[2]]);
    expect(BigInt(position)).toBeGreaterThanOrEqual(BigInt(seq));
  });

  it('a new consumer starts at the end of the relayed events', async () => {
    const t = await newTenant(api, 'New consumer');
    await insertEvents(t.clientId, 7, ['wall.updated']);
    await relayAll(api.runtime);
    const name = `test-${randomUUID().slice(0, 8)}`;
    const head = async () => BigInt((await em().execute<{ head: string }[]>('select through as head from outbox_horizon'))[0]!.head);
    // The relay of this API may move the horizon meanwhile: the position is the end as it was at registration.
    const before = await head();
    await registerConsumer(api.runtime.ormSql, { name });
    const after = await head();
    const [{ position }] = await em().execute<{ position: string }[]>('select position from outbox_consumer where name = ?', [name]);
    expect(BigInt(position)).toBeGreaterThanOrEqual(before);
    expect(BigInt(position)).toBeLessThanOrEqual(after);
    expect(before).toBeGreaterThan(0n);
  });

  it('a consumer behind takes its full batches one after the other, not one per interval; a stop ends its gather at once', async () => {
    const t = await newTenant(api, 'Behind');
    const name = `test-${randomUUID().slice(0, 8)}`;
    await registerConsumer(api.runtime.ormSql, { name });
    const ids = await insertEvents(t.clientId, 7, Array.from({ length: 40 }, () => 'wall.updated'));
    await relayAll(api.runtime);
    const listener = listenForNotifications(api.runtime.config.DATABASE_URL, api.runtime.log);
    const waiter = listener.waiter(RELAYED_CHANNEL);
    // The consumer's waits, seen from outside: whether one is under way, and how many were woken.
    let waiting = false;
    let woken = 0;
    const watched: typeof waiter = {
      wait: (ms) => {
        waiting = true;
        return waiter.wait(ms).then((w) => {
          waiting = false;
          if (w) woken++;
          return w;
        });
      },
      wake: () => waiter.wake(),
      clear: () => waiter.clear(),
    };
    let stopped = false;
    let ended = false;
    // An interval of ten minutes: a consumer that waited it out after each full batch of 5 would take its
    // first batch at once and the next one only after the test's bound.
    const running = runConsumer(
      api.runtime.ormSql,
      recording(name),
      { batchSize: 5, pollMs: 600_000, intervalMs: 600_000, attempts: 3, retryBaseMs: 10, positionSaveMs: 0 },
      { waiter: watched, ctx: api.runtime, stopped: () => stopped },
    ).finally(() => (ended = true));
    try {
      await waitFor(async () => (await effects(name)).length === ids.length, { what: 'the 40 events applied in 8 full batches' });
      expect(await effects(name)).toEqual(ids);
      // Idle now, it is woken by a relay notification (another process's events) and gathers for its
      // interval: a stop (as the runtime's close does it) ends that gather, not the ten minutes.
      await waitFor(() => waiting, { what: 'the consumer waiting for news' });
      const before = woken;
      await em().execute('select pg_notify(?, ?)', [RELAYED_CHANNEL, '']);
      await waitFor(() => woken > before, { what: 'the consumer woken by the notification' });
    } finally {
      stopped = true;
      waiter.wake();
    }
    await waitFor(() => ended, { what: 'the consumer stopped' });
    await listener.close();
    await running;
  });

  it.each([
    ['saves its position with every batch', 0],
    ['saves its position now and then (positionSaveMs)', 200],
  ])('a poison event: the others are applied, it is tried OUTBOX_CONSUMER_ATTEMPTS times, recorded in failed_job and passed over; a consumer that %s', async (_, positionSaveMs) => {
    const t = await newTenant(api, 'Poison');
    const name = `test-${randomUUID().slice(0, 8)}`;
    await registerConsumer(api.runtime.ormSql, { name });
    const ids = await insertEvents(t.clientId, 7, ['wall.updated', 'wall.updated', 'wall.updated', 'wall.updated', 'wall.updated']);
    const poison = ids[2]!;
    let tries = 0;
    const consumer = recording(name, (e) => e.id === poison && ++tries > 0);
    const listener = listenForNotifications(api.runtime.config.DATABASE_URL, api.runtime.log);
    let stopped = false;
    const running = runConsumer(
      api.runtime.ormSql,
      consumer,
      { batchSize: 10, pollMs: 50, intervalMs: 0, attempts: 3, retryBaseMs: 10, positionSaveMs },
      { waiter: listener.waiter(RELAYED_CHANNEL), ctx: api.runtime, stopped: () => stopped },
    );
    try {
      await relayAll(api.runtime);
      const [{ last }] = await em().execute<{ last: string }[]>('select max(id)::text as last from outbox_event where event_id in (?)', [ids]);
      await waitFor(async () => (await effects(name)).length === 4, { what: 'the four good events applied' });
      // The position is saved past them all, also when it is saved only now and then (once nothing new follows).
      const position = async () => BigInt((await em().execute<{ position: string }[]>('select position from outbox_consumer where name = ?', [name]))[0]!.position);
      await waitFor(async () => (await position()) >= BigInt(last), { what: 'the position saved past the events' });
      expect(await effects(name)).toEqual(ids.filter((id) => id !== poison));
      const [failed] = await em().execute<{ job_name: string; error: string; attempts: number; data: { consumer: string; event: WallEvent } }[]>(
        `select job_name, error, attempts, data from failed_job where queue = ? and job_id = ?`,
        [`consumer:${name}`, poison],
      );
      expect(failed).toMatchObject({ job_name: 'wall.updated', attempts: 3, error: `cannot take ${poison}`, data: { consumer: name, event: { id: poison } } });
      // The batch once, then the poison alone three times.
      expect(tries).toBe(4);
    } finally {
      stopped = true;
      await listener.close();
      await running;
    }
  });

  it('the audit consumer records each relayed event once: kinds, ids, no session token, a message; an event that fails its schema goes to failed_job at once', async () => {
    const t = await newTenant(api, 'Audit');
    const rows: [string, unknown][] = [
      ['sort-box-item.created', sampleData('sort-box-item.created', { item: { id: 31, userId: 5, orderId: 77, crc: 'AB12CD34', barcode: '0123' }, sortBox: { crc: 'AB12CD34' } })],
      ['sort-box-item.swapped', sampleData('sort-box-item.swapped', { item: { id: 1, orderId: 2, crc: 'TO000000' }, from: { crc: 'FROM0000' }, to: { crc: 'TO000000' } })],
      ['session.started', sampleData('session.started', { session: { id: 12, token: 'secret-token', userId: 3, picklistId: 8 } })],
      ['command.refused', sampleData('command.refused', { command: 'slot.release', code: 'slot-not-complete', detail: 'Slot 3 still sorts order 7.', userId: 2, crc: 'AB12CD34', sessionId: null, orderId: null, sortBoxItemId: null })],
      ['something.else', ['not', 'an', 'object']],
      ['sort-box.released', sampleData('sort-box.released', { forced: 'yes' })],
    ];
    const ids = rows.map(() => randomUUID());
    await em().execute(
      `insert into outbox_event (event_id, client_id, wall_id, type, data) select e.id, ?, 9, e.type, e.data from jsonb_to_recordset(?::jsonb) as e(id uuid, type text, data jsonb)`,
      [t.clientId, JSON.stringify(rows.map(([type, data], i) => ({ id: ids[i], type, data })))],
    );
    const listener = listenForNotifications(api.runtime.config.DATABASE_URL, api.runtime.log);
    let stopped = false;
    await registerConsumer(api.runtime.ormSql, { name: EVENT_CONSUMERS.audit.name });
    const running = runConsumer(
      api.runtime.ormSql,
      EVENT_CONSUMERS.audit,
      { batchSize: 10, pollMs: 50, intervalMs: 0, attempts: 3, retryBaseMs: 10, positionSaveMs: 0 },
      { waiter: listener.waiter(RELAYED_CHANNEL), ctx: api.runtime, stopped: () => stopped },
    );
    const failedJobs = () =>
      em().execute<{ job_id: string; job_name: string; error: string; attempts: number }[]>(
        `select job_id, job_name, error, attempts from failed_job where queue = 'consumer:audit' and job_id in (?, ?) order by job_name collate "C"`,
        [ids[4], ids[5]],
      );
    try {
      await relayAll(api.runtime);
      await waitFor(async () => (await failedJobs()).length === 2, { what: 'the two malformed events recorded in failed_job' });
    } finally {
      stopped = true;
      await listener.close();
      await running;
    }
    // Unknown type and a field of the wrong type: each recorded once, after one try (retrying cannot make it valid).
    expect(await failedJobs()).toEqual([
      expect.objectContaining({ job_id: ids[4], job_name: 'something.else', attempts: 1, error: expect.stringMatching(/unknown event type/) }),
      expect.objectContaining({ job_id: ids[5], job_name: 'sort-box.released', attempts: 1, error: expect.stringMatching(/does not match its schema: forced/) }),
    ]);
    const records = await em().execute<Record<string, unknown>[]>(
      `select event_id, kind, wall_id, user_id, order_id, picklist_id, crc, barcode, sort_box_item_id, session_id, is_error, message, data
         from audit_log where client_id = ? order by id`,
      [t.clientId],
    );
    const byId = new Map(records.map((r) => [r.event_id as string, r]));
    expect(byId.get(ids[0]!)).toMatchObject({ kind: 'sort-box-item', wall_id: 9, user_id: 5, order_id: 77, crc: 'AB12CD34', barcode: '0123', sort_box_item_id: 31, is_error: false });
    expect(byId.get(ids[1]!)).toMatchObject({ kind: 'sort-box-item', crc: 'TO000000', order_id: 2 });
    expect(byId.get(ids[2]!)).toMatchObject({ kind: 'session', session_id: 12, user_id: 3, picklist_id: 8 });
    expect(JSON.stringify(byId.get(ids[2]!)!.data)).not.toContain('secret-token');
    expect(byId.get(ids[3]!)).toMatchObject({ kind: 'sort-box', is_error: true, user_id: 2, crc: 'AB12CD34', message: 'Slot 3 still sorts order 7.' });
    for (const r of records) expect(typeof r.message === 'string' && (r.message as string).length > 0).toBe(true);
    // Each event once, even when the consumer is asked again.
    await consumeAll(api.runtime, EVENT_CONSUMERS.audit);
    expect(Number((await em().execute<{ n: string }[]>('select count(*) as n from audit_log where client_id = ?', [t.clientId]))[0]!.n)).toBe(4);
  });

  it("the sweeper's interval goes to one process however many ask", async () => {
    const name = `test-${randomUUID().slice(0, 8)}`;
    const claims = await Promise.all(Array.from({ length: 5 }, () => claimMaintenanceRun(api.runtime.ormSql, { name, intervalMs: 60_000 })));
    expect(claims.filter(([c]) => c!.claimed)).toHaveLength(1);
    expect((await claimMaintenanceRun(api.runtime.ormSql, { name, intervalMs: 60_000 }))[0]!.claimed).toBe(false);
    await em().execute(`update maintenance_run set last_run_at = now() - interval '61 seconds' where name = ?`, [name]);
    expect((await claimMaintenanceRun(api.runtime.ormSql, { name, intervalMs: 60_000 }))[0]!.claimed).toBe(true);
  });
});
