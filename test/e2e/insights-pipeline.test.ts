import request from 'supertest';
import { buildFloor, connect, scan } from '../support/sorting-floor';
import { useTestApi, waitFor } from '../support/test-api';

/*
 * The statistics worker as one more consumer of the outbox fan-out: a scan, a confirm and a refused
 * scan reach /insights through the relay and the `stats` worker, with no call of the consumer by hand.
 */
describe('insights fed by the outbox fan-out', () => {
  const api = useTestApi({ workers: ['sorting', 'outbox', 'stats'] });

  it('counts a confirmed unit and a failed scan (by its reason too) once the relay and the stats worker have run', async () => {
    const floor = await buildFloor(api, { slots: 2, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
    const manager = (await floor.manager()).auth;
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const sorter = await floor.sorter(1);
    const { body: session } = await connect(api, floor, sorter.auth);
    const item = await scan(api, sorter.auth, session.token, 'SKU-A');
    expect(item.status).toBe(200);
    expect((await request(api.app).patch(`/api/v1/sort-box-items/${item.body.id}/confirm`).set('Authorization', sorter.auth)).status).toBe(200);
    expect((await scan(api, sorter.auth, session.token, 'NO-SUCH-PRODUCT')).status).toBe(422);
    const to = new Date(Date.now() + 3_600_000).toISOString();

    const stats = async () =>
      (await request(api.app).get('/api/v1/insights/stats').query({ from, to }).set('Authorization', manager)).body as {
        confirmedUnits: number;
        failedScans: number;
        refusalsByReason: { code: string; count: number }[];
      };
    await waitFor(async () => {
      const s = await stats();
      return s.confirmedUnits === 1 && s.failedScans === 1;
    }, { timeoutMs: 30_000, what: 'the roll-ups to count the confirm and the refused scan' });
    // The refused scan also counts by its reason, once.
    expect((await stats()).refusalsByReason).toEqual([{ code: 'barcode-not-recognized', count: 1 }]);
  }, 90_000);
});
