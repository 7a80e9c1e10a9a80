import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Client as PgClient } from 'pg';
import type { EventConsumer } from '../../workers/pipeline/consumer-runner';
import { EVENT_CONSUMERS } from '../support/event-consumers';
import { enforceRetention, retentionSettings, type RetentionSettings } from '../../workers/sweeper/retention.use-case';
import { firstRebuildableDay, rebuildStats } from '../../shared/statistics/rebuild-stats.use-case';
import { SqlClient } from '../../shared/db/sql-pool';
import { consumeAll, relayAll } from '../support/pipeline';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { useTestApi } from '../support/test-api';
import { sampleData } from '../support/event-samples';

/*
 * Every kind of record has a lifetime (docs/operations.md "Retention"): the sweeper's retention deletes
 * what is past it, in statements of at most RETENTION_BATCH_SIZE rows, and keeps what anything still
 * needs (an event a consumer has not passed or a webhook delivery still waits for, an item of an order
 * still in its slot, a pending attempt). The records here are made old by moving their times back.
 */

const DAY = 86_400_000;

describe('retention', () => {
  const api = useTestApi({ workers: ['sorting'] });
  const em = () => api.runtime.orm.em.fork();
  const consumers = Object.values(EVENT_CONSUMERS).map((c) => c.name);
  // Every consumer, the light gateway's with a handler that does nothing (it has no drivers here).
  const everyConsumer: EventConsumer[] = Object.values(EVENT_CONSUMERS).map((c) => (c.name === 'lights' ? { ...c, handle: async () => undefined } : c));
  const settings = (): RetentionSettings => ({ ...retentionSettings(api.runtime.config), batch: 1000 });
  const retain = (opts: Partial<RetentionSettings> = {}, budgetMs = 60_000) => enforceRetention(api.runtime.ormSql, { ...settings(), ...opts }, { consumers, budgetMs, pauseMs: 0 });
  const n = async (sql: string, params: unknown[]) => Number((await em().execute<{ n: string }[]>(`select count(*) as n from (${sql}) x`, params))[0]!.n);
  const relayAndConsumeAll = async () => {
    await relayAll(api.runtime);
    for (const c of everyConsumer) await consumeAll(api.runtime, c);
  };
  let floor: Floor;
  beforeAll(async () => {
    floor = await buildFloor(api, { slots: 3, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }] }, { id: 2, items: [{ sku: 'SKU-B', qty: 5 }] }] });
  });

  it('outbox events: deleted once older than OUTBOX_RETENTION_DAYS and passed by every consumer; the rebuild then says how far back it goes', async () => {
    const clientId = floor.tenant.clientId;
    const insert = async (days: number) => {
      const id = randomUUID();
      await em().execute(`insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data) values (?, ?, ?, 'wall.updated', ?, ?::jsonb)`, [
        id,
        clientId,
        floor.wallId,
        new Date(Date.now() - days * DAY),
        JSON.stringify(sampleData('wall.updated')),
      ]);
      return id;
    };
    // The retention goes along the outbox id, oldest first, as events age on a floor. What other tests
    // left in this database is relayed, passed and made older than anything here, as it would be.
    await relayAndConsumeAll();
    await em().execute(`update outbox_event set occurred_at = occurred_at - interval '60 days' where id <= (select through from outbox_horizon)`);
    const [old, young, waiting] = [await insert(30), await insert(1), await insert(30)];
    const [{ id: subscriptionId }] = await em().execute<{ id: number }[]>(
      `insert into webhook_subscription (client_id, url, events, secret) values (?, 'https://hooks.example.com/x', '{*}', 's') returning id`,
      [clientId],
    );
    await relayAndConsumeAll();
    // A delivery still pending keeps its event; so does a consumer that has not passed it.
    await em().execute(`delete from webhook_pending where event_id in (?)`, [[old, young]]);
    const late = await insert(30);
    await relayAll(api.runtime);
    // Committed, not relayed yet (no relay runs here): nothing has seen it.
    const unrelayed = await insert(30);
    const exists = async (id: string) => (await n('select 1 from outbox_event where event_id = ?', [id])) === 1;

    await retain();
    expect(await exists(old)).toBe(false);
    expect(await exists(young)).toBe(true);
    expect(await exists(waiting)).toBe(true);
    // Relayed, but no consumer has passed it yet.
    expect(await exists(late)).toBe(true);
    expect(await exists(unrelayed)).toBe(true);
    for (const c of everyConsumer) await consumeAll(api.runtime, c);
    await em().execute(`delete from webhook_pending where subscription_id = ?`, [subscriptionId]);
    await em().execute(`delete from webhook_subscription where id = ?`, [subscriptionId]);
    await retain();
    expect(await exists(late)).toBe(false);
    expect(await exists(waiting)).toBe(false);

    // The statistics rebuild can start no earlier than the first day whose events are all kept.
    const pg = new PgClient({ connectionString: api.runtime.config.DATABASE_URL });
    await pg.connect();
    let first: string | null;
    try {
      first = await firstRebuildableDay(new SqlClient(pg, false));
    } finally {
      await pg.end();
    }
    const cutoff = new Date(Date.now() - api.runtime.config.OUTBOX_RETENTION_DAYS * DAY);
    expect(first! > cutoff.toISOString().slice(0, 10)).toBe(true);
    const tooEarly = new Date(cutoff.getTime() - DAY).toISOString().slice(0, 10);
    await expect(rebuildStats(api.runtime.config.DATABASE_URL, { from: tooEarly, to: first!, clientId })).rejects.toThrow(
      new RegExp(`a rebuild can start on ${first} at the earliest`),
    );
  });

  it('outbox events: a delivery still pending keeps its event, and the retention goes on past it', async () => {
    const clientId = floor.tenant.clientId;
    // What earlier tests left: relayed, passed, old, their deliveries given up, and deleted.
    await relayAndConsumeAll();
    await em().execute(`update outbox_event set occurred_at = occurred_at - interval '60 days' where id <= (select through from outbox_horizon)`);
    await em().execute(`delete from webhook_pending`);
    await retain();
    expect(await n('select 1 from outbox_event where id <= (select through from outbox_horizon)', [])).toBe(0);

    const [{ id: subscriptionId }] = await em().execute<{ id: number }[]>(
      `insert into webhook_subscription (client_id, url, events, secret) values (?, 'https://hooks.example.com/y', '{*}', 's') returning id`,
      [clientId],
    );
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = randomUUID();
      await em().execute(`insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data) values (?, ?, ?, 'wall.updated', now() - interval '30 days', ?::jsonb)`, [
        id,
        clientId,
        floor.wallId,
        JSON.stringify(sampleData('wall.updated')),
      ]);
      ids.push(id);
    }
    await relayAndConsumeAll();
    // The first event's delivery stays pending (its endpoint is down); the others were delivered.
    await em().execute(`delete from webhook_pending where subscription_id = ? and event_id <> ?`, [subscriptionId, ids[0]]);
    // Batches of 3: each looks at the kept event again and deletes two more.
    await retain({ batch: 3 });
    const left = await em().execute<{ event_id: string }[]>(`select event_id from outbox_event where event_id in (?)`, [ids]);
    expect(left.map((r) => r.event_id)).toEqual([ids[0]]);
    await em().execute(`delete from webhook_subscription where id = ?`, [subscriptionId]);
  });

  it('audit records, counted-event ids, failed jobs, applied commands and idempotency records: deleted once older than their setting', async () => {
    const clientId = floor.tenant.clientId;
    const old = new Date(Date.now() - 400 * DAY);
    const [a1, a2] = [randomUUID(), randomUUID()];
    await em().execute(`insert into audit_log (client_id, event_id, occurred_at, type, kind, message) values (?, ?, ?, 'wall.updated', 'wall', 'old'), (?, ?, now(), 'wall.updated', 'wall', 'new')`, [
      clientId,
      a1,
      old,
      clientId,
      a2,
    ]);
    const [c1, c2] = [randomUUID(), randomUUID()];
    await em().execute(`insert into stats_counted_event (event_id, counted_at) values (?, ?), (?, now())`, [c1, old, c2]);
    const [j1, j2] = [randomUUID(), randomUUID()];
    await em().execute(`insert into failed_job (queue, job_name, job_id, data, error, attempts, failed_at) values ('q', 'j', ?, '{}', 'e', 1, ?), ('q', 'j', ?, '{}', 'e', 1, now())`, [j1, old, j2]);
    const [m1, m2] = [randomUUID(), randomUUID()];
    await em().execute(
      `insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at, idempotency_key, request_hash)
       values (?, ?, 1, 'item.scan', 0, 1, '{}', ?, ?, 'h'), (?, ?, 1, 'item.scan', 0, 2, '{}', now(), ?, 'h')`,
      [m1, clientId, old, m1, m2, clientId, m2],
    );
    await retain();
    expect(await n('select 1 from audit_log where event_id in (?)', [[a1, a2]])).toBe(1);
    expect(await n('select 1 from audit_log where event_id = ?', [a2])).toBe(1);
    expect(await n('select 1 from stats_counted_event where event_id in (?)', [[c1, c2]])).toBe(1);
    expect(await n('select 1 from failed_job where job_id in (?)', [[j1, j2]])).toBe(1);
    expect(await n('select 1 from applied_command where command_id in (?)', [[m1, m2]])).toBe(1);
    expect(await n('select 1 from applied_command where idempotency_key in (?)', [[m1, m2]])).toBe(1);
  });

  it('webhook attempts and rendered labels: deleted once older than their setting; an attempt still pending stays', async () => {
    const clientId = floor.tenant.clientId;
    const old = new Date(Date.now() - 400 * DAY);
    const [{ id: sub }] = await em().execute<{ id: number }[]>(
      `insert into webhook_subscription (client_id, url, events, secret, is_active) values (?, 'https://hooks.example.com/x', '{*}', 's', false) returning id`,
      [clientId],
    );
    const attempt = (status: string, at: Date) =>
      em()
        .execute<{ id: string }[]>(
          `insert into webhook_delivery (client_id, subscription_id, event_id, event_type, attempt, status, attempted_at) values (?, ?, gen_random_uuid(), 'wall.updated', 1, ?, ?) returning id`,
          [clientId, sub, status, at],
        )
        .then((r) => r[0]!.id);
    const [oldDone, oldPending, recent] = [await attempt('failed', old), await attempt('pending', old), await attempt('succeeded', new Date())];
    const plate = (order: number, at: Date) =>
      em().execute(
        `insert into license_plate (client_id, order_id, plate_number, print_count) values (?, ?, 'LP' || ?, 0) on conflict do nothing;
         insert into license_plate_document (client_id, order_id, format, plate_number, label_hash, body, rendered_at) values (?, ?, 'zpl', 'LP' || ?, 'h', '\\x00', ?)`,
        [clientId, order, `${clientId}-${order}`, clientId, order, `${clientId}-${order}`, at],
      );
    await plate(1, old);
    await plate(2, new Date());
    await retain();
    expect((await em().execute<{ id: string }[]>('select id from webhook_delivery where subscription_id = ? order by id', [sub])).map((r) => r.id)).toEqual([oldPending, recent]);
    expect(oldDone).toBeDefined();
    expect((await em().execute<{ order_id: number }[]>('select order_id from license_plate_document where client_id = ?', [clientId])).map((r) => r.order_id)).toEqual([2]);
  });

  it('sort box items: confirmed and cancelled ones deleted once older than their setting; pending ones and those of an order still in its slot stay', async () => {
    const sorter = await floor.sorter(1);
    const { body: session } = await connect(api, floor, sorter.auth);
    const done = await scan(api, sorter.auth, session.token, 'SKU-A');
    // Order 1 (one unit) completes; its slot keeps the order until the shipper releases it.
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${done.body.id}/confirm`).set('Authorization', sorter.auth)).status).toBe(200);
    // Order 2's first unit scanned and cancelled: its slot is vacated, the item is finished.
    const cancelled = await scan(api, sorter.auth, session.token, 'SKU-B');
    expect(cancelled.status).toBe(200);
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${cancelled.body.id}/cancel`).set('Authorization', sorter.auth)).status).toBe(200);
    const pending = await scan(api, sorter.auth, session.token, 'SKU-B');
    expect(pending.status).toBe(200);
    await em().execute(`update sort_box_item set created_at = created_at - interval '500 days' where client_id = ?`, [floor.tenant.clientId]);
    const items = async () => (await em().execute<{ id: number }[]>('select id from sort_box_item where client_id = ? order by id', [floor.tenant.clientId])).map((r) => r.id);
    await retain();
    // The cancelled one goes; the confirmed one's order is still in its slot, the pending one waits: both stay.
    expect(await items()).toEqual([done.body.id, pending.body.id]);
    // Once the slot is released, the confirmed item goes.
    const release = await request(api.app).post(`/api/v1/sort-boxes/B-${done.body.crc}/release`).set('Authorization', sorter.auth);
    expect(release.status).toBe(200);
    await retain();
    expect(await items()).toEqual([pending.body.id]);
  });

  it('in short statements: at most RETENTION_BATCH_SIZE rows each; a pass that has spent its time gives each kind one statement', async () => {
    const old = new Date(Date.now() - 400 * DAY);
    await em().execute(`insert into failed_job (queue, job_name, job_id, data, error, attempts, failed_at) select 'q', 'j', gen_random_uuid(), '{}', 'e', 1, ? from generate_series(1, 5)`, [old]);
    const left = () => n(`select 1 from failed_job where failed_at < now() - interval '300 days'`, []);
    expect(await left()).toBe(5);
    // No time at all: one statement of 2 rows for this kind, then the pass goes on to the next.
    await retain({ batch: 2 }, 0);
    expect(await left()).toBe(3);
    await retain({ batch: 2 });
    expect(await left()).toBe(0);
  });
});
