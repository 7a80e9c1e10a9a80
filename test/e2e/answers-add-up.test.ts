import request from 'supertest';
import { SortBoxItem } from '../../shared/db/entities';
import { DIM, SCOPE } from '../../shared/statistics/rollup.queries';
import { newTenant, useTestApi } from '../support/test-api';
import { buildFloor, connect } from '../support/sorting-floor';

/*
 * Answers that add up (docs/api.md §7, docs/insights.md): a scan is one unit and a confirm a whole
 * number of units from 1, anything else is a 400 that changes nothing; unitsPerHour divides by the hours
 * worked, not by the length of the range.
 */

describe('units outside the contract', () => {
  const api = useTestApi({ workers: ['sorting'] });
  const em = () => api.runtime.orm.em.fork();

  it('refuses a scan whose units are not 1, and a confirm whose units are not 1..100000, with 400 and nothing changed', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 5 }] }] });
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    const items = () => em().count(SortBoxItem, { clientId: floor.tenant.clientId });

    for (const units of [-2, 0, 1.5, 2, 1e9, '1', null]) {
      const res = await request(api.app).post('/api/v1/sort-box-items').set('Authorization', s.auth).send({ sessionToken: token, barcode: 'SKU-A', units });
      expect({ units, status: res.status, code: res.body.code }).toEqual({ units, status: 400, code: 'validation-failed' });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: 'units' })]);
    }
    expect(await items()).toBe(0);

    const one = await request(api.app).post('/api/v1/sort-box-items').set('Authorization', s.auth).send({ sessionToken: token, barcode: 'SKU-A', units: 1 });
    expect(one.status).toBe(200);
    const id = one.body.id as number;
    const confirm = (query: string, body?: object) => {
      const r = request(api.app).patch(`/api/v1/sort-box-items/${id}/confirm${query}`).set('Authorization', s.auth);
      return body ? r.send(body) : r;
    };
    for (const q of ['-2', '0', '1.5', '1e9', '100001', 'abc', '']) {
      const res = await confirm(`?units=${q}`);
      expect({ q, status: res.status, code: res.body.code }).toEqual({ q, status: 400, code: 'validation-failed' });
    }
    for (const units of [-2, 0, 2.5, 1e9, '2']) {
      const res = await confirm('', { units });
      expect({ units, status: res.status, code: res.body.code }).toEqual({ units, status: 400, code: 'validation-failed' });
    }
    const disagree = await confirm('?units=2', { units: 3 });
    expect(disagree.status).toBe(400);
    expect(disagree.body.detail).toMatch(/units=2.*units=3/);
    expect((await em().findOneOrFail(SortBoxItem, { id })).status).toBe('PendingConfirmation');

    // The units in the body are as good as in the query.
    const ok = await confirm('', { units: 2 });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'Confirmed', units: 2, confirmedUnits: 2, remainingUnits: 3 });
    expect(await items()).toBe(1);
  });
});

describe('unitsPerHour over the hours worked', () => {
  const api = useTestApi();
  const em = () => api.runtime.orm.em.fork();

  it('divides the units by the hours in which anything was done, not by the hours of the range', async () => {
    const tenant = await newTenant(api);
    // A day of one company (UTC): 10 units at 09:00, 20 at 10:00, a cancel alone at 14:00, a refused
    // scan alone at 16:00, and a completed order alone (no work of its own) at 18:00.
    const day = '2026-03-10';
    const hours: [number, Partial<Record<'scans' | 'failed_scans' | 'confirmed_items' | 'confirmed_units' | 'cancelled_items' | 'sorted_orders', number>>][] = [
      [9, { scans: 10, confirmed_items: 10, confirmed_units: 10 }],
      [10, { scans: 12, confirmed_items: 12, confirmed_units: 20 }],
      [14, { cancelled_items: 1 }],
      [16, { failed_scans: 1 }],
      [18, { sorted_orders: 1 }],
    ];
    const cols = ['scans', 'failed_scans', 'confirmed_items', 'confirmed_units', 'cancelled_items', 'sorted_orders'] as const;
    const e = em();
    const total = Object.fromEntries(cols.map((c) => [c, hours.reduce((n, [, v]) => n + (v[c] ?? 0), 0)]));
    for (const [h, v] of hours) {
      await e.execute(
        `insert into stats_hour (client_id, scope, scope_id, dim, dim_key, bucket, ${cols.join(', ')}) values (?, ?, 0, ?, '', ?, ${cols.map(() => '?').join(', ')})`,
        [tenant.clientId, SCOPE.client, DIM.total, `${day}T${String(h).padStart(2, '0')}:00:00Z`, ...cols.map((c) => v[c] ?? 0)],
      );
    }
    await e.execute(
      `insert into stats_day (client_id, scope, scope_id, dim, dim_key, bucket, ${cols.join(', ')}) values (?, ?, 0, ?, '', ?, ${cols.map(() => '?').join(', ')})`,
      [tenant.clientId, SCOPE.client, DIM.total, day, ...cols.map((c) => total[c])],
    );
    const stats = async (from: string, to: string) =>
      (await request(api.app).get('/api/v1/insights/stats').query({ from, to }).set('Authorization', tenant.auth).expect(200)).body;

    // The whole day: 30 units over 4 hours worked (9, 10, 14, 16), not over 24.
    expect(await stats(day, day)).toMatchObject({ confirmedUnits: 30, hoursWorked: 4, unitsPerHour: 7.5 });
    // A week around it: the same hours.
    expect(await stats('2026-03-07', '2026-03-13')).toMatchObject({ confirmedUnits: 30, hoursWorked: 4, unitsPerHour: 7.5 });
    // The morning alone: 30 units in 2 hours.
    expect(await stats(`${day}T08:00:00Z`, `${day}T12:00:00Z`)).toMatchObject({ confirmedUnits: 30, hoursWorked: 2, unitsPerHour: 15 });
    // Nothing worked: 0, not a division by zero.
    expect(await stats('2026-03-01', '2026-03-01')).toMatchObject({ confirmedUnits: 0, hoursWorked: 0, unitsPerHour: 0 });
  });
});
