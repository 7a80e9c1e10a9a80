import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import type { NamedStatement, SqlDatabase, SqlRunner } from '../../shared/db/named-sql';
import { Relay, stepAndFeed } from '../../workers/outbox/relay.use-case';
import { eventConsumer, runConsumer, type RelayedTypedEvent } from '../../workers/pipeline/consumer-runner';
import { registerConsumer } from '../../workers/pipeline/consumer.queries';
import { localWaiter } from '../../workers/pipeline/notifications';
import { RelayFeed } from '../../workers/pipeline/relay-feed';
import { sampleData } from '../support/event-samples';
import { newTenant, startTestApi, waitFor, type TestApi } from '../support/test-api';

/*
 * A consumer that reads at every relay step and saves its position now and then (the light gateway)
 * takes the steps of the relay of its own process from memory (workers/pipeline/relay-feed.ts): every
 * event once and in order while the steps follow its position, with no read of the outbox; the outbox
 * read again whenever they do not (a relay that has just become the active one); its position saved
 * in a statement of its own, which also finds another process holding it.
 */

/** The database, counting the statements run through it by name. */
function counting(db: SqlDatabase): { db: SqlDatabase; calls: (name: string) => number } {
  const calls = new Map<string, number>();
  const count = (s: NamedStatement) => calls.set(s.name, (calls.get(s.name) ?? 0) + 1);
  const wrap = (r: SqlRunner): SqlRunner => ({
    run: (s, v) => {
      count(s);
      return r.run(s, v);
    },
  });
  return {
    db: { ...wrap(db), transaction: (fn) => db.transaction((tx) => fn(wrap(tx))) },
    calls: (name) => calls.get(name) ?? 0,
  };
}

describe('a consumer fed by the relay of its process', () => {
  let api: TestApi;
  // No relay worker: the test steps its own relays, as the outbox worker does.
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
  });
  const em = () => api.runtime.orm.em.fork();

  /** One commit of events of the given types on a wall (their outbox ids in the order given). */
  const commit = async (clientId: number, wallId: number, types: ('wall.updated' | 'sort-box.released')[]): Promise<{ id: string; type: string }[]> => {
    const rows = types.map((type) => ({ id: randomUUID(), type, data: sampleData(type) }));
    await em().execute(
      `insert into outbox_event (event_id, client_id, wall_id, type, data) select e.id, ?, ?, e.type, e.data from jsonb_to_recordset(?::jsonb) as e(id uuid, type text, data jsonb)`,
      [clientId, wallId, JSON.stringify(rows)],
    );
    return rows;
  };
  /** Steps the relay (handing its steps to the feed) until the horizon is past every commit so far. */
  const relayAll = async (relay: Relay, feed: RelayFeed) => {
    for (let i = 0; i < 100; i++) {
      const s = await stepAndFeed(relay, feed);
      if (s.locked && !s.more && !relay.waiting && s.events.length === 0 && s.republish.length === 0) return;
    }
    throw new Error('the relay did not pass every commit in 100 steps');
  };
  const position = async (name: string) => BigInt((await em().execute<{ position: string }[]>('select position from outbox_consumer where name = ?', [name]))[0]!.position);
  const last = async () => BigInt((await em().execute<{ id: string }[]>('select max(id)::text as id from outbox_event'))[0]!.id);

  function start(name: string, feed: RelayFeed) {
    const seen: RelayedTypedEvent[] = [];
    let standbys = 0;
    const consumer = eventConsumer(name, async (events: RelayedTypedEvent[]) => void seen.push(...events), ['wall.updated']);
    const waiter = localWaiter();
    const counted = counting(api.runtime.ormSql);
    let stopped = false;
    const reader = feed.reader(() => waiter.wake());
    const running = runConsumer(
      counted.db,
      consumer,
      // The back-up poll is a minute: every look here is woken by the feed.
      { batchSize: 100, pollMs: 60_000, intervalMs: 0, attempts: 3, retryBaseMs: 10, positionSaveMs: 200 },
      { waiter, ctx: api.runtime, stopped: () => stopped, onStandby: () => void standbys++, feed: reader },
    );
    return {
      seen,
      calls: counted.calls,
      standbys: () => standbys,
      stop: async () => {
        stopped = true;
        waiter.wake();
        await running;
        reader.close();
      },
    };
  }

  it('takes every event once, in order, with no read of the outbox while the steps follow its position; its position saved in a statement of its own', async () => {
    const t = await newTenant(api, 'Fed');
    const name = `test-${randomUUID().slice(0, 8)}`;
    const feed = new RelayFeed();
    const relay = new Relay(api.runtime.ormSql, 500);
    await relayAll(relay, feed);
    await registerConsumer(api.runtime.ormSql, { name });
    const c = start(name, feed);
    try {
      // The first batch reads the outbox: the consumer has no position of its own yet.
      const expected = (await commit(t.clientId, 3, ['wall.updated'])).map((e) => e.id);
      await relayAll(relay, feed);
      await waitFor(async () => c.seen.length === 1, { what: 'the first event read from the outbox' });
      const reads = c.calls('outbox-next-events');
      for (let i = 0; i < 10; i++) {
        const events = await commit(t.clientId, 3, ['wall.updated', 'sort-box.released', 'wall.updated']);
        expected.push(...events.filter((e) => e.type === 'wall.updated').map((e) => e.id));
        await relayAll(relay, feed);
      }
      await waitFor(async () => c.seen.length >= expected.length, { what: 'every event of its types handed over' });
      expect(c.seen.map((e) => e.id)).toEqual(expected);
      expect(c.seen.map((e) => BigInt(e.outboxId))).toEqual([...c.seen.map((e) => BigInt(e.outboxId))].sort((a, b) => (a < b ? -1 : 1)));
      expect(c.calls('outbox-next-events')).toBe(reads);
      // Saved once nothing new follows, in a statement of its own, past every event.
      const through = await last();
      await waitFor(async () => (await position(name)) >= through, { what: 'the position saved past the events' });
      expect(c.calls('outbox-consumer-save-handled')).toBeGreaterThan(0);
      expect(c.calls('outbox-next-events')).toBe(reads);
    } finally {
      await c.stop();
    }
  });

  it('reads the outbox when a step does not follow its position (a relay that has just become the active one), then takes the steps again', async () => {
    const t = await newTenant(api, 'Takeover');
    const name = `test-${randomUUID().slice(0, 8)}`;
    const feed = new RelayFeed();
    const first = new Relay(api.runtime.ormSql, 500);
    await relayAll(first, feed);
    await registerConsumer(api.runtime.ormSql, { name });
    const c = start(name, feed);
    try {
      const expected = (await commit(t.clientId, 4, ['wall.updated'])).map((e) => e.id);
      await relayAll(first, feed);
      await waitFor(async () => c.seen.length === 1, { what: 'the first event' });
      // Another relay of the process takes over: its first step reads apart what it passed (and its
      // predecessor's last seconds), so the consumer reads those events from the outbox.
      const readsBefore = c.calls('outbox-next-events');
      const second = new Relay(api.runtime.ormSql, 500);
      for (let i = 0; i < 3; i++) expected.push(...(await commit(t.clientId, 4, ['wall.updated'])).map((e) => e.id));
      await relayAll(second, feed);
      await waitFor(async () => c.seen.length >= expected.length, { what: 'the events of the take-over read from the outbox' });
      expect(c.calls('outbox-next-events')).toBeGreaterThan(readsBefore);
      // The steps that follow are handed over again.
      const reads = c.calls('outbox-next-events');
      for (let i = 0; i < 3; i++) {
        expected.push(...(await commit(t.clientId, 4, ['wall.updated'])).map((e) => e.id));
        await relayAll(second, feed);
      }
      await waitFor(async () => c.seen.length >= expected.length, { what: 'the steps after it' });
      expect(c.seen.map((e) => e.id)).toEqual(expected);
      expect(c.calls('outbox-next-events')).toBe(reads);
    } finally {
      await c.stop();
    }
  });

  it('a save that finds the position held by another process makes it a stand-by; it reads the outbox from the saved position after', async () => {
    const t = await newTenant(api, 'Standby');
    const name = `test-${randomUUID().slice(0, 8)}`;
    const feed = new RelayFeed();
    const relay = new Relay(api.runtime.ormSql, 500);
    await relayAll(relay, feed);
    await registerConsumer(api.runtime.ormSql, { name });
    const c = start(name, feed);
    const other = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await other.connect();
    try {
      const [a] = await commit(t.clientId, 5, ['wall.updated']);
      await relayAll(relay, feed);
      await waitFor(async () => c.seen.length === 1, { what: 'the first event' });
      await waitFor(async () => (await position(name)) >= (await last()), { what: 'its position saved' });
      // Another process holds the consumer's position while this one hands a step over and saves.
      await other.query('begin');
      await other.query('select 1 from outbox_consumer where name = $1 for update', [name]);
      const [b] = await commit(t.clientId, 5, ['wall.updated']);
      await relayAll(relay, feed);
      await waitFor(async () => c.standbys() > 0, { what: 'the consumer a stand-by' });
      await other.query('commit');
      const [d] = await commit(t.clientId, 5, ['wall.updated']);
      await relayAll(relay, feed);
      await waitFor(async () => c.seen.some((e) => e.id === d!.id), { what: 'the next event read from the outbox' });
      // At least once: the event handed over while the position was held comes again (the saved position is before it).
      expect(c.seen.map((e) => e.id)).toEqual([a!.id, b!.id, b!.id, d!.id]);
      const through = await last();
      await waitFor(async () => (await position(name)) >= through, { what: 'the position saved past them' });
    } finally {
      await other.end();
      await c.stop();
    }
  });
});
