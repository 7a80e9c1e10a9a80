import type { EntityManager } from '@mikro-orm/postgresql';

/*
 * The insights figures computed the plain way, straight from the raw records (the stored outbox
 * events), with no roll-up involved: what the property and end-to-end tests compare the answers with.
 */

export interface RefScope {
  clientId: number;
  warehouseId?: number | null;
  wallId?: number | null;
}

async function zoneAndWhere(em: EntityManager, s: RefScope): Promise<{ tz: string; where: string; params: unknown[] }> {
  if (s.wallId != null) {
    const [w] = await em.execute<{ tz: string | null; warehouse_id: number | null }[]>(
      'select wh.time_zone as tz, w.warehouse_id from wall w left join warehouse wh on wh.client_id = w.client_id and wh.id = w.warehouse_id where w.id = ?',
      [s.wallId],
    );
    if (s.warehouseId != null && w.warehouse_id !== s.warehouseId) return { tz: w.tz ?? 'UTC', where: 'false', params: [] };
    return { tz: w.tz ?? 'UTC', where: 'o.client_id = ? and o.wall_id = ?', params: [s.clientId, s.wallId] };
  }
  if (s.warehouseId != null) {
    const [w] = await em.execute<{ tz: string | null }[]>('select time_zone as tz from warehouse where client_id = ? and id = ?', [s.clientId, s.warehouseId]);
    return {
      tz: w.tz ?? 'UTC',
      where: 'o.client_id = ? and o.wall_id in (select id from wall where client_id = ? and warehouse_id = ?)',
      params: [s.clientId, s.clientId, s.warehouseId],
    };
  }
  return { tz: 'UTC', where: 'o.client_id = ?', params: [s.clientId] };
}

const SCAN = `o.type = 'sort-box-item.created'`;
const CONFIRM = `o.type = 'sort-box-item.confirmed'`;
const CANCEL = `o.type = 'sort-box-item.cancelled'`;
const FAILED = `(o.type = 'command.refused' and o.data->>'command' = 'item.scan')`;
const SORTED = `o.type = 'sort-box.completed'`;
const UNITS = `(o.data->'item'->>'confirmedUnits')::int`;

/** The hour range an answer should have counted: from down, to up to whole hours of the zone. */
async function hours(em: EntityManager, tz: string, from: Date, to: Date): Promise<{ f: Date; t: Date }> {
  const [r] = await em.execute<{ f: Date; t: Date }[]>(
    `select date_trunc('hour', ?::timestamptz, ?) as f,
            case when date_trunc('hour', ?::timestamptz, ?) = ?::timestamptz then ?::timestamptz else date_trunc('hour', ?::timestamptz, ?) + interval '1 hour' end as t`,
    [from, tz, to, tz, to, to, to, tz],
  );
  return { f: new Date(r.f), t: new Date(r.t) };
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

export async function refSortingStats(em: EntityManager, s: RefScope, from: Date, to: Date, products: number) {
  const { tz, where, params } = await zoneAndWhere(em, s);
  const { f, t } = await hours(em, tz, from, to);
  const base = `from outbox_event o where ${where} and o.occurred_at >= ? and o.occurred_at < ?`;
  const p = [...params, f, t];
  const [tot] = await em.execute<Record<string, string | null>[]>(
    `select count(*) filter (where ${SCAN}) as scans, coalesce(sum(${UNITS}) filter (where ${CONFIRM}), 0) as units,
            count(*) filter (where ${CANCEL}) as cancelled, count(*) filter (where ${FAILED}) as failed, count(*) filter (where ${SORTED}) as sorted,
            avg(extract(epoch from ((o.data->'item'->>'confirmedAt')::timestamptz - (o.data->'item'->>'createdAt')::timestamptz))) filter (where ${CONFIRM}) as avg
       ${base}`,
    p,
  );
  const top = await em.execute<{ sku: string; units: string }[]>(
    `select o.data->'item'->>'sku' as sku, sum(${UNITS}) as units ${base} and ${CONFIRM}
      group by 1 having sum(${UNITS}) > 0 order by 2 desc, 1 limit ${products}`,
    p,
  );
  const users = await em.execute<{ user_id: string; scans: string; units: string }[]>(
    `select o.data->'item'->>'userId' as user_id, count(*) filter (where ${SCAN}) as scans, coalesce(sum(${UNITS}) filter (where ${CONFIRM}), 0) as units
       ${base} and (${SCAN} or ${CONFIRM}) group by 1`,
    p,
  );
  // Every refused command, per its code (not only the refused scans).
  const reasons = await em.execute<{ code: string; n: string }[]>(
    `select o.data->>'code' as code, count(*) as n ${base} and o.type = 'command.refused' and o.data->>'code' is not null group by 1`,
    p,
  );
  // Hours worked: the distinct local hours with a scan, a refused scan, a confirmation or a cancel.
  const [worked] = await em.execute<{ hours: string }[]>(
    `select count(distinct date_trunc('hour', o.occurred_at, ?::text)) as hours ${base} and (${SCAN} or ${FAILED} or ${CONFIRM} or ${CANCEL})`,
    [tz, ...p],
  );
  const hoursWorked = Number(worked!.hours);
  const units = Number(tot.units);
  return {
    from: f.toISOString(),
    to: t.toISOString(),
    scans: Number(tot.scans),
    confirmedUnits: units,
    cancelledItems: Number(tot.cancelled),
    failedScans: Number(tot.failed),
    sortedOrders: Number(tot.sorted),
    averageSecondsToConfirm: tot.avg === null ? null : r3(Number(tot.avg)),
    hoursWorked,
    unitsPerHour: hoursWorked > 0 ? Math.round((units / hoursWorked) * 100) / 100 : 0,
    topProducts: top.map((x) => ({ sku: x.sku, units: Number(x.units) })),
    byUser: users
      .map((u) => ({ userId: Number(u.user_id), scans: Number(u.scans), units: Number(u.units) }))
      .filter((u) => u.scans > 0 || u.units > 0)
      .sort((a, b) => b.units - a.units || b.scans - a.scans || a.userId - b.userId),
    refusalsByReason: reasons
      .map((r) => ({ code: r.code, count: Number(r.n) }))
      .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)),
  };
}

/** Per local hour of the local day holding `date`: the non-zero hours only, { hour: count }. */
export async function refDailyHours(em: EntityManager, s: RefScope, date: Date, what: 'orders' | 'units', userId?: number) {
  const { tz, where, params } = await zoneAndWhere(em, s);
  const value = what === 'orders' ? `count(*) filter (where ${SORTED})` : `coalesce(sum(${UNITS}) filter (where ${CONFIRM}), 0)`;
  const user = userId === undefined ? '' : `and o.data->'item'->>'userId' = '${Number(userId)}'`;
  const rows = await em.execute<{ day: string; hour: number; n: string }[]>(
    `select (?::timestamptz at time zone ?)::date::text as day, extract(hour from o.occurred_at at time zone ?)::int as hour, ${value} as n
       from outbox_event o where ${where} ${user}
        and (o.occurred_at at time zone ?)::date = (?::timestamptz at time zone ?)::date
      group by 2`,
    [date, tz, tz, ...params, tz, date, tz],
  );
  const byHour: Record<number, number> = {};
  for (const r of rows) if (Number(r.n) !== 0) byHour[r.hour] = Number(r.n);
  const [d] = await em.execute<{ day: string }[]>('select (?::timestamptz at time zone ?)::date::text as day', [date, tz]);
  return { date: d.day, byHour };
}

/** Per local day from the day of `from` to the day of `to` (a `to` at local midnight ends the day before): non-zero days. */
export async function refDays(em: EntityManager, s: RefScope, from: Date, to: Date, what: 'orders' | 'units', userId?: number) {
  const { tz, where, params } = await zoneAndWhere(em, s);
  const value = what === 'orders' ? `count(*) filter (where ${SORTED})` : `coalesce(sum(${UNITS}) filter (where ${CONFIRM}), 0)`;
  const user = userId === undefined ? '' : `and o.data->'item'->>'userId' = '${Number(userId)}'`;
  const [b] = await em.execute<{ d1: string; d2: string }[]>(
    `select (?::timestamptz at time zone ?)::date::text as d1,
            ((?::timestamptz at time zone ?) - case when (?::timestamptz at time zone ?)::time = time '00:00' and ?::timestamptz > ?::timestamptz then interval '1 day' else interval '0' end)::date::text as d2`,
    [from, tz, to, tz, to, tz, to, from],
  );
  const rows = await em.execute<{ day: string; n: string }[]>(
    `select (o.occurred_at at time zone ?)::date::text as day, ${value} as n
       from outbox_event o where ${where} ${user}
        and (o.occurred_at at time zone ?)::date between ?::date and ?::date
      group by 1`,
    [tz, ...params, tz, b.d1, b.d2],
  );
  const byDay: Record<string, number> = {};
  for (const r of rows) if (Number(r.n) !== 0) byDay[r.day] = Number(r.n);
  return { firstDay: b.d1, lastDay: b.d2, byDay };
}

export async function refWallScanning(em: EntityManager, clientId: number, wallId: number, from: Date, to: Date) {
  const { tz, where, params } = await zoneAndWhere(em, { clientId, wallId });
  const { f, t } = await hours(em, tz, from, to);
  const base = `from outbox_event o where ${where} and o.occurred_at >= ? and o.occurred_at < ?`;
  const p = [...params, f, t];
  const [tot] = await em.execute<Record<string, string>[]>(
    `select count(*) filter (where ${SCAN}) as scans, count(*) filter (where ${CONFIRM}) as confirmed,
            count(*) filter (where ${CANCEL}) as cancelled, count(*) filter (where ${FAILED}) as failed ${base}`,
    p,
  );
  const methods = await em.execute<{ m: string; n: string }[]>(
    `select o.data->'item'->>'barcodeInputMethod' as m, count(*) as n ${base} and ${SCAN} group by 1`,
    p,
  );
  const slots = async (cond: string) =>
    Object.fromEntries(
      (await em.execute<{ crc: string; n: string }[]>(`select o.data->'item'->>'crc' as crc, count(*) as n ${base} and ${cond} group by 1`, p)).map((r) => [r.crc, Number(r.n)]),
    );
  return {
    from: f.toISOString(),
    to: t.toISOString(),
    scans: Number(tot.scans),
    confirmed: Number(tot.confirmed),
    cancelled: Number(tot.cancelled),
    failed: Number(tot.failed),
    byInputMethod: Object.fromEntries(methods.map((m) => [m.m, Number(m.n)])),
    scannedPerSlot: await slots(SCAN),
    confirmedPerSlot: await slots(CONFIRM),
  };
}

/** The billing figure from the raw events: distinct slots with a confirmed unit in the UTC month. */
export async function refSlotsUsed(em: EntityManager, clientId: number, month: string): Promise<number> {
  const [r] = await em.execute<{ n: number }[]>(
    `select count(distinct o.data->'item'->>'crc')::int as n from outbox_event o
      where o.client_id = ? and ${CONFIRM} and o.occurred_at >= (?||'-01')::date::timestamp at time zone 'UTC'
        and o.occurred_at < ((?||'-01')::date + interval '1 month')::timestamp at time zone 'UTC'`,
    [clientId, month, month],
  );
  return r.n;
}
