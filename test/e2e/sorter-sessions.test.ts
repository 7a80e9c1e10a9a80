import request from 'supertest';
import { SorterSession } from '../../shared/db/entities';
import { addPicklist } from '../support/fixtures';
import { useTestApi, waitFor } from '../support/test-api';
import { buildFloor, connect, scan } from '../support/sorting-floor';

describe('sorter sessions (docs/api.md §6)', () => {
  const api = useTestApi({ workers: ['sorting', 'sweeper'], env: { SESSION_SWEEP_INTERVAL_MS: '200' } });

  it('gives each sorter the first free color and refuses past the wall limit with a detail naming who is connected', async () => {
    const floor = await buildFloor(api, { maxSorters: 2 });
    const [a, b, c] = [await floor.sorter(1), await floor.sorter(2), await floor.sorter(3)];
    const sa = await connect(api, floor, a.auth);
    const sb = await connect(api, floor, b.auth);
    expect([sa.body.color, sb.body.color]).toEqual(['Red', 'Blue']);
    const sc = await connect(api, floor, c.auth);
    expect(sc.status).toBe(409);
    expect(sc.body.code).toBe('sorter-limit-reached');
    expect(sc.body.detail).toMatch(/allows 2 sorters.*2 are connected: sorter1 Tester \(Red\), sorter2 Tester \(Blue\)/);
    // A stops; its color is free again for C.
    await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${sa.body.token}`).set('Authorization', a.auth).expect(200);
    const sc2 = await connect(api, floor, c.auth);
    expect(sc2.status).toBe(200);
    expect(sc2.body.color).toBe('Red');
  });

  it("replaces the user's earlier session on the wall, even on a full wall", async () => {
    const floor = await buildFloor(api, { maxSorters: 1 });
    const a = await floor.sorter(1);
    const first = await connect(api, floor, a.auth);
    const second = await connect(api, floor, a.auth);
    expect(second.status).toBe(200);
    expect(second.body.token).not.toBe(first.body.token);
    const old = await api.runtime.orm.em.fork().findOneOrFail(SorterSession, { token: first.body.token });
    expect(old).toMatchObject({ status: 'Ended', endReason: 'Replaced' });
    const scanOld = await scan(api, a.auth, first.body.token, 'SKU-A');
    expect(scanOld.status).toBe(409);
    expect(scanOld.body.code).toBe('session-ended');
  });

  it('renews a session (expiresAt moves), lists connected sessions for a Manager, and lets a Manager disconnect a sorter', async () => {
    const floor = await buildFloor(api);
    const a = await floor.sorter(1);
    const m = await floor.manager();
    const s = await connect(api, floor, a.auth);
    await api.runtime.orm.em.fork().nativeUpdate(SorterSession, { token: s.body.token }, { expiresAt: new Date(Date.now() + 60_000) });
    const renewed = await request(api.app).put(`/api/v1/walls/${floor.wallId}/sessions/${s.body.token}`).set('Authorization', a.auth);
    expect(renewed.status).toBe(200);
    expect(new Date(renewed.body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 7.9 * 3600_000);

    const listBySorter = await request(api.app).get(`/api/v1/walls/${floor.wallId}/sessions`).set('Authorization', a.auth);
    expect(listBySorter.status).toBe(403);
    const list = await request(api.app).get(`/api/v1/walls/${floor.wallId}/sessions`).set('Authorization', m.auth);
    expect(list.status).toBe(200);
    expect(list.body.map((x: { token: string }) => x.token)).toEqual([s.body.token]);

    const other = await floor.sorter(2);
    const notYours = await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${s.body.token}`).set('Authorization', other.auth);
    expect(notYours.status).toBe(403);
    const kicked = await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sessions/${s.body.token}`).set('Authorization', m.auth);
    expect(kicked.status).toBe(200);
    expect(kicked.body).toMatchObject({ status: 'Ended', endReason: 'Disconnected' });
    const renewEnded = await request(api.app).put(`/api/v1/walls/${floor.wallId}/sessions/${s.body.token}`).set('Authorization', a.auth);
    expect(renewEnded.status).toBe(409);
    expect(renewEnded.body.code).toBe('session-ended');
  });

  it('enforces picklist rules: Open only, required on PicklistSort walls, and scans match only its orders', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 1 }], priority: 'Critical' }, { id: 2, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const em = api.runtime.orm.em.fork();
    await addPicklist(em, floor.tenant.clientId, { id: 7, status: 'Open', orderIds: [2] });
    await addPicklist(em, floor.tenant.clientId, { id: 8, status: 'Closed', orderIds: [1] });
    const a = await floor.sorter(1);
    const closed = await connect(api, floor, a.auth, { picklistId: 8 });
    expect(closed.status).toBe(422);
    expect(closed.body.code).toBe('picklist-not-open');
    const missing = await connect(api, floor, a.auth, { picklistId: 999 });
    expect(missing.status).toBe(404);
    const s = await connect(api, floor, a.auth, { picklistId: 7 });
    expect(s.status).toBe(200);
    expect(s.body.picklistId).toBe(7);
    const item = await scan(api, a.auth, s.body.token, 'SKU-A');
    expect(item.body.orderId).toBe(2); // order 1 has higher priority but is not in picklist 7

    await request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth).send({ workflow: 'PicklistSort' }).expect(200);
    const b = await floor.sorter(2);
    const noPicklist = await connect(api, floor, b.auth);
    expect(noPicklist.status).toBe(422);
    expect(noPicklist.body.code).toBe('picklist-required');
  });

  it('refuses an inactive wall, a wall of another client, and a disabled subscription', async () => {
    const floor = await buildFloor(api);
    const other = await buildFloor(api);
    const a = await floor.sorter(1);
    const foreign = await request(api.app).post(`/api/v1/walls/${other.wallId}/sessions`).set('Authorization', a.auth).send({});
    expect(foreign.status).toBe(404);
    await request(api.app).patch(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth).send({ isActive: false }).expect(200);
    const inactive = await connect(api, floor, a.auth);
    expect(inactive.status).toBe(422);
    expect(inactive.body.code).toBe('wall-inactive');
    await request(api.app).put('/api/v1/admin/subscriptions/sorting').set('Authorization', floor.tenant.auth).send({ enabled: false }).expect(200);
    const disabled = await connect(api, floor, a.auth);
    expect(disabled.status).toBe(403);
    expect(disabled.body.code).toBe('subscription-disabled');
  });

  it('expires a session idle past its expiry, server-side, without a client call', async () => {
    const floor = await buildFloor(api, { orders: [{ id: 3, items: [{ sku: 'SKU-A', qty: 1 }] }] });
    const a = await floor.sorter(1);
    const s = await connect(api, floor, a.auth);
    await api.runtime.orm.em.fork().nativeUpdate(SorterSession, { token: s.body.token }, { expiresAt: new Date(Date.now() - 1000) });
    // Written behind the wall actor's back: the write moved the wall's version, so the actor reloads.
    const ended = await waitFor(
      async () => {
        const row = await api.runtime.orm.em.fork().findOneOrFail(SorterSession, { token: s.body.token });
        return row.status === 'Ended' ? row : null;
      },
      { what: 'the sweeper to expire the session' },
    );
    expect(ended.endReason).toBe('Expired');
    const late = await scan(api, a.auth, s.body.token, 'SKU-A');
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('session-ended');
  });
});
