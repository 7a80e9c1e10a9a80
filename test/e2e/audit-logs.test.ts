import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { commandRefusedEventId } from '../../shared/events/command-refused';
import { newTenant, useTestApi, waitFor, type Tenant } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

type Rec = { id: number; occurredAt: string; type: string; wallId: number | null; userId: number | null; orderId: number | null; picklistId: number | null;
  crc: string | null; barcode: string | null; sortBoxItemId: number | null; sessionId: number | null; isError: boolean; message: string; data: Record<string, any> };

/**
 * The records' types in listing order, where records of one instant (the events of one command, e.g.
 * a confirm and the completion it caused) are a set: their relative order is not part of the contract.
 */
function typesByInstant(records: Rec[]): string[] {
  const out: string[][] = [];
  let last: string | null = null;
  for (const r of records) {
    if (r.occurredAt === last) out[out.length - 1].push(r.type);
    else out.push([r.type]);
    last = r.occurredAt;
  }
  return out.flatMap((g) => g.sort());
}

describe('audit logs: the pipeline records every event and every refused command; seven listings', () => {
  const api = useTestApi({ workers: ['sorting', 'outbox', 'audit'] });

  const get = (auth: string, path: string) => request(api.app).get(`/api/v1${path}`).set('Authorization', auth);
  const auditRows = async (clientId: number) => {
    const [{ n }] = await api.runtime.orm.em.fork().execute<{ n: string }[]>('select count(*) as n from audit_log where client_id = ?', [clientId]);
    return Number(n);
  };

  describe('records written by the workers', () => {
    let floor: Floor;
    let manager: { auth: string; userId: number };
    let sorter: { auth: string; userId: number };
    let itemId: number;
    let crc: string;
    let scannedAt: string;

    beforeAll(async () => {
      floor = await buildFloor(api, { orders: [{ id: 11, items: [{ sku: 'SKU-A', qty: 1 }] }] });
      manager = await floor.manager();
      sorter = await floor.sorter(1);
      const { body: session } = await connect(api, floor, sorter.auth);
      const unknown = await scan(api, sorter.auth, session.token, 'NO-SUCH-CODE');
      expect(unknown.body.code).toBe('barcode-not-recognized');
      const noOrder = await scan(api, sorter.auth, session.token, 'SKU-B');
      expect(noOrder.body.code).toBe('no-fulfillable-order');
      const ok = await scan(api, sorter.auth, session.token, '012345678905');
      expect(ok.status).toBe(200);
      itemId = ok.body.id;
      crc = ok.body.crc;
      scannedAt = ok.body.createdAt;
      const wrong = await request(api.app).patch(`/api/v1/sort-box-items/${itemId}/confirm`).set('Authorization', sorter.auth).send({ barcode: `A-${floor.slots[1].crc}` });
      expect(wrong.body.code).toBe('wrong-slot');
      const shipper = await request(api.app).patch(`/api/v1/sort-box-items/${itemId}/confirm`).set('Authorization', sorter.auth).send({ barcode: `B-${crc}` });
      expect(shipper.body.code).toBe('shipper-barcode-not-accepted');
      const tooMany = await request(api.app).patch(`/api/v1/sort-box-items/${itemId}/confirm?units=5`).set('Authorization', sorter.auth);
      expect(tooMany.body.code).toBe('units-exceed-remaining');
      expect((await request(api.app).patch(`/api/v1/sort-box-items/${itemId}/confirm`).set('Authorization', sorter.auth)).status).toBe(200);
      expect((await request(api.app).post(`/api/v1/sort-boxes/B-${crc}/release`).set('Authorization', sorter.auth)).status).toBe(200);
      // session.started, 5 refusals, created, confirmed, completed, released.
      await waitFor(async () => (await auditRows(floor.tenant.clientId)) >= 10, { what: 'ten audit records' });
    });

    it('lists every record newest first, refusals as isError with their code and detail', async () => {
      const res = await get(manager.auth, '/audit-logs?count=100');
      expect(res.status).toBe(200);
      const types = typesByInstant(res.body as Rec[]);
      expect(types).toEqual([
        'sort-box.released', 'sort-box-item.confirmed', 'sort-box.completed',
        'command.refused', 'command.refused', 'command.refused',
        'sort-box-item.created', 'command.refused', 'command.refused', 'session.started',
      ]);
      const errors = (res.body as Rec[]).filter((r) => r.isError);
      expect(errors.map((r) => r.data.code).reverse()).toEqual([
        'barcode-not-recognized', 'no-fulfillable-order', 'wrong-slot', 'shipper-barcode-not-accepted', 'units-exceed-remaining',
      ]);
      const unknown = errors[errors.length - 1];
      expect(unknown).toMatchObject({ wallId: floor.wallId, userId: sorter.userId, barcode: 'NO-SUCH-CODE', sessionId: expect.any(Number), isError: true });
      expect(unknown.message).toMatch(/NO-SUCH-CODE/);
      expect(unknown.data).toMatchObject({ command: 'item.scan', code: 'barcode-not-recognized', barcodeInputMethod: expect.any(String), userId: sorter.userId });
      const wrongSlot = errors.find((r) => r.data.code === 'wrong-slot')!;
      expect(wrongSlot).toMatchObject({ sortBoxItemId: itemId, orderId: 11, crc });
      const created = (res.body as Rec[]).find((r) => r.type === 'sort-box-item.created')!;
      expect(created).toMatchObject({ wallId: floor.wallId, userId: sorter.userId, orderId: 11, crc, barcode: '012345678905', sortBoxItemId: itemId, isError: false });
      // Messages name the employee, the units and SKU, the slot's number on the wall and the wall.
      const byType = (type: string) => (res.body as Rec[]).find((r) => r.type === type)!.message;
      const [sorterName, wallName] = await Promise.all([
        api.runtime.orm.em.fork().execute<{ n: string }[]>("select first_name || ' ' || last_name as n from employee where id = ?", [sorter.userId]),
        api.runtime.orm.em.fork().execute<{ n: string }[]>('select name as n from wall where id = ?', [floor.wallId]),
      ]).then((rows) => rows.map((r) => r[0]!.n));
      expect(sorterName).toMatch(/Tester$/);
      expect(byType('sort-box-item.created')).toBe(`${sorterName} scanned SKU-A ('012345678905') for order 11: slot 1.`);
      expect(byType('sort-box-item.confirmed')).toBe(`${sorterName} confirmed 1 × SKU-A into slot 1 (order 11).`);
      expect(byType('sort-box.completed')).toBe(`Order 11 is complete in slot 1 of wall '${wallName}': ready for the shipper.`);
      expect(byType('sort-box.released')).toBe(`${sorterName} released slot 1 of wall '${wallName}' (order 11).`);
      expect(byType('session.started')).toMatch(new RegExp(`^${sorterName} connected to wall '${wallName}' \\(Red\\)\\.$`));
      const started = (res.body as Rec[]).find((r) => r.type === 'session.started')!;
      expect(started.userId).toBe(sorter.userId);
      expect(JSON.stringify(started.data)).not.toMatch(/"token"/);
      // Each record once, newest first.
      expect(new Set((res.body as Rec[]).map((r) => r.id)).size).toBe(10);
      const times = (res.body as Rec[]).map((r) => r.occurredAt);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('command.refused never reaches the hubs: the outbox replay leaves it out', async () => {
      const [{ n }] = await api.runtime.orm.em.fork().execute<{ n: string }[]>(
        `select count(*) as n from outbox_event where client_id = ? and type = 'command.refused' and id <= (select through from outbox_horizon)`, [floor.tenant.clientId]);
      expect(Number(n)).toBe(5);
    });

    it('the typed listings show their kinds; filters narrow them', async () => {
      const items = (await get(manager.auth, '/audit-logs/sort-box-items?count=100')).body as Rec[];
      expect(items.map((r) => r.type)).toEqual(['sort-box-item.confirmed', 'command.refused', 'command.refused', 'command.refused', 'sort-box-item.created', 'command.refused', 'command.refused']);
      const boxes = (await get(manager.auth, '/audit-logs/sort-boxes')).body as Rec[];
      expect(boxes.map((r) => r.type)).toEqual(['sort-box.released', 'sort-box.completed']);
      const sessions = (await get(manager.auth, '/audit-logs/sessions')).body as Rec[];
      expect(sessions.map((r) => r.type)).toEqual(['session.started']);
      expect((await get(manager.auth, `/audit-logs/sessions?userId=${sorter.userId}`)).body).toHaveLength(1);
      expect((await get(manager.auth, `/audit-logs/sessions?userId=${manager.userId}`)).body).toHaveLength(0);
      expect((await get(manager.auth, `/audit-logs?barcode=012345678905`)).body.map((r: Rec) => r.type)).toEqual(['sort-box-item.confirmed', 'sort-box-item.created']);
      expect((await get(manager.auth, `/audit-logs?errors=false&count=100`)).body).toHaveLength(5);
      expect((await get(manager.auth, `/audit-logs/sort-box-items?orderId=11&count=100`)).body.length).toBe(5);
      expect((await get(manager.auth, `/audit-logs/sort-box-items?barcode=NO-SUCH-CODE`)).body).toHaveLength(1);
      expect((await get(manager.auth, `/audit-logs/sort-box-items?sortBoxCrc=${crc}&count=100`)).body).toHaveLength(5);
      expect((await get(manager.auth, `/audit-logs?warehouseId=${floor.warehouseId}&count=100`)).body).toHaveLength(10);
      expect((await get(manager.auth, `/audit-logs?warehouseId=${floor.warehouseId + 1000}`)).body).toHaveLength(0);
      // One order's stay in the slot, named by the scan's createdAt.
      const stay = (await get(manager.auth, `/audit-logs/sort-boxes/${crc}?orderSortId=${encodeURIComponent(scannedAt)}`)).body as Rec[];
      expect(typesByInstant(stay)).toEqual(['sort-box.released', 'sort-box-item.confirmed', 'sort-box.completed', 'command.refused', 'command.refused', 'command.refused', 'sort-box-item.created']);
      const boxesOfStay = (await get(manager.auth, `/audit-logs/sort-boxes?sortBoxCrc=${crc}&orderSortId=${encodeURIComponent(scannedAt)}`)).body as Rec[];
      expect(boxesOfStay.map((r) => r.type)).toEqual(['sort-box.released', 'sort-box.completed']);
    });

    it('a slot is named as in every other slot path: its crc in any case, or the A-/B- barcode as scanned', async () => {
      const stayOf = async (slot: string) => {
        const res = await get(manager.auth, `/audit-logs/sort-boxes/${slot}?orderSortId=${encodeURIComponent(scannedAt)}`);
        expect(res.status).toBe(200);
        return (res.body as Rec[]).map((r) => r.id);
      };
      const byCrc = await stayOf(crc);
      expect(byCrc).toHaveLength(7);
      for (const form of [crc.toLowerCase(), `A-${crc}`, `B-${crc}`, `b-${crc.toLowerCase()}`, `a-${crc}`]) expect(await stayOf(form)).toEqual(byCrc);
      for (const form of [`B-${crc}`, crc.toLowerCase()]) {
        expect((await get(manager.auth, `/audit-logs/sort-boxes?sortBoxCrc=${form}`)).body.map((r: Rec) => r.type)).toEqual(['sort-box.released', 'sort-box.completed']);
        expect((await get(manager.auth, `/audit-logs?crc=${form}&count=100`)).body.length).toBeGreaterThanOrEqual(byCrc.length);
      }
      const bad = await get(manager.auth, `/audit-logs/sort-boxes/C-${crc}?orderSortId=${encodeURIComponent(scannedAt)}`);
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'crc', in: 'path' })]);
    });
    it('records a refusal once although its command ran twice (deterministic event id)', async () => {
      const handlers = sortingHandlers(new WallActors({ ...actorDeps(api.runtime), sessionIdleTimeoutMs: 60_000 }, api.runtime.config.QUEUE_PARTITIONS));
      const commandId = randomUUID();
      const { body: session } = await connect(api, floor, (await floor.sorter(2)).auth);
      const payload = {
        clientId: floor.tenant.clientId, wallId: floor.wallId, userId: session.userId, roles: ['Sorter' as const],
        sessionToken: session.token, barcode: 'TWICE-UNKNOWN', barcodeInputMethod: 'KeyedIn' as const, idempotencyKey: null,
      };
      for (const jobId of [1, 2]) {
        const outcome = await handlers['item.scan'](payload, { commandId, partition: 0, jobId });
        expect(outcome).toMatchObject({ ok: false, problem: { code: 'barcode-not-recognized' } });
      }
      const eventId = commandRefusedEventId(commandId);
      expect(eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const em = api.runtime.orm.em.fork();
      const outbox = await em.execute<{ data: Record<string, unknown> }[]>('select data from outbox_event where event_id = ?', [eventId]);
      expect(outbox).toHaveLength(1);
      expect(outbox[0].data).toEqual({
        command: 'item.scan', code: 'barcode-not-recognized', detail: expect.stringContaining('TWICE-UNKNOWN'), sessionId: expect.any(Number),
        userId: session.userId, barcode: 'TWICE-UNKNOWN', barcodeInputMethod: 'KeyedIn', sortBoxItemId: null, crc: null, orderId: null, picklistId: null,
      });
      await waitFor(async () => (await em.fork().execute('select 1 from audit_log where event_id = ?', [eventId])).length === 1, { what: 'the refusal audited' });
      const listed = (await get(manager.auth, '/audit-logs?barcode=TWICE-UNKNOWN')).body as Rec[];
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ isError: true, type: 'command.refused', sessionId: outbox[0].data.sessionId });
    });
  });

  describe('filters, order and access on a prepared log', () => {
    let t: Tenant;
    let other: Tenant;
    const at = (m: number) => new Date(Date.UTC(2026, 10, 20, 8, m)).toISOString();
    beforeAll(async () => {
      t = await newTenant(api, 'Audit');
      other = await newTenant(api, 'Other');
      const em = api.runtime.orm.em.fork();
      const rows: [string, string, Partial<Record<string, unknown>>][] = [
        ['wall.updated', 'wall', { wall_id: 1, user_id: null }],
        ['session.started', 'session', { wall_id: 1, user_id: 7, picklist_id: 3, session_id: 70 }],
        ['sort-box-item.created', 'sort-box-item', { wall_id: 1, user_id: 7, order_id: 100, picklist_id: 3, crc: 'AAAA0001', barcode: 'SKU-A', sort_box_item_id: 500, warehouse_id: 9 }],
        ['command.refused', 'sort-box-item', { wall_id: 2, user_id: 8, barcode: 'BAD', is_error: true }],
        ['sort-box.completed', 'sort-box', { wall_id: 1, order_id: 100, crc: 'AAAA0001' }],
        ['license-plate.generated', 'license-plate', { wall_id: 1, user_id: 8, order_id: 100, crc: 'AAAA0001', is_license_plate: true }],
        ['sort-box.released', 'sort-box', { wall_id: 1, user_id: 8, order_id: 100, crc: 'AAAA0001' }],
        ['wall.updated', 'wall', { wall_id: 2, user_id: null }],
      ];
      for (const [i, [type, kind, f]] of rows.entries()) {
        await em.execute(
          `insert into audit_log (client_id, event_id, occurred_at, type, kind, wall_id, warehouse_id, user_id, order_id, picklist_id, crc, barcode, sort_box_item_id, session_id, is_error, is_license_plate, message)
           values (?, gen_random_uuid(), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [t.clientId, at(i), type, kind, f.wall_id ?? null, f.warehouse_id ?? null, f.user_id ?? null, f.order_id ?? null, f.picklist_id ?? null,
            f.crc ?? null, f.barcode ?? null, f.sort_box_item_id ?? null, f.session_id ?? null, f.is_error ?? false, f.is_license_plate ?? false, `${type} ${i}`],
        );
      }
      await em.execute(`insert into audit_log (client_id, event_id, occurred_at, type, kind, message) values (?, gen_random_uuid(), ?, 'wall.updated', 'wall', 'other client')`, [other.clientId, at(0)]);
    });
    const types = async (path: string) => {
      const res = await get(t.auth, path);
      expect(res.status).toBe(200);
      return (res.body as Rec[]).map((r) => r.message.replace(/^.* /, ''));
    };

    it('count: default 25, 0..1000; out of range or not a number → 400 validation-failed', async () => {
      expect(await types('/audit-logs')).toEqual(['7', '6', '5', '4', '3', '2', '1', '0']);
      expect(await types('/audit-logs?count=2')).toEqual(['7', '6']);
      expect(await types('/audit-logs?count=0')).toEqual([]);
      for (const bad of ['-1', '1001', 'abc', '2.5']) {
        const res = await get(t.auth, `/audit-logs?count=${bad}`);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation-failed');
      }
      for (const path of ['/audit-logs/sort-boxes?count=1001', '/audit-logs/sort-box-items?count=-1', '/audit-logs/sessions?count=x', '/audit-logs/walls?count=5000']) {
        expect((await get(t.auth, path)).body.code).toBe('validation-failed');
      }
    });

    it('from, to and since: a window, newest first; since: oldest first after it', async () => {
      expect(await types(`/audit-logs?from=${at(2)}&to=${at(5)}`)).toEqual(['4', '3', '2']);
      expect(await types(`/audit-logs?since=${at(5)}`)).toEqual(['6', '7']);
      expect(await types(`/audit-logs?since=${at(1)}&count=2`)).toEqual(['2', '3']);
      expect(await types(`/audit-logs?from=&to=`)).toHaveLength(8);
      const bad = await get(t.auth, '/audit-logs?from=yesterday');
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('from');
    });

    it('every filter of ListAuditLogs', async () => {
      expect(await types('/audit-logs?wallId=2')).toEqual(['7', '3']);
      expect(await types('/audit-logs?userId=8')).toEqual(['6', '5', '3']);
      expect(await types('/audit-logs?orderId=100')).toEqual(['6', '5', '4', '2']);
      expect(await types('/audit-logs?warehouseId=9')).toEqual(['2']);
      expect(await types('/audit-logs?crc=AAAA0001')).toEqual(['6', '5', '4', '2']);
      expect(await types('/audit-logs?barcode=BAD')).toEqual(['3']);
      expect(await types('/audit-logs?errors=true')).toEqual(['3']);
      expect(await types('/audit-logs?errors=false')).toHaveLength(7);
      expect(await types('/audit-logs?licensePlates=true')).toEqual(['5']);
      expect(await types('/audit-logs?licensePlates=false')).toHaveLength(7);
      expect(await types('/audit-logs?wallId=1&userId=8')).toEqual(['6', '5']);
      expect((await get(t.auth, '/audit-logs?wallId=abc')).status).toBe(400);
      expect((await get(t.auth, '/audit-logs?errors=maybe')).status).toBe(400);
    });

    it('the sort box, item, session and wall listings and their filters', async () => {
      expect(await types('/audit-logs/sort-boxes')).toEqual(['6', '5', '4']);
      expect(await types('/audit-logs/sort-boxes?licensePlates=true')).toEqual(['5']);
      expect(await types('/audit-logs/sort-boxes?licensePlates=false')).toEqual(['6', '4']);
      expect(await types('/audit-logs/sort-boxes?sortBoxCrc=AAAA0001&userId=8')).toEqual(['6', '5']);
      expect(await types('/audit-logs/sort-boxes?orderId=100&wallId=1')).toEqual(['6', '5', '4']);
      expect(await types('/audit-logs/sort-boxes?picklistId=3')).toEqual([]);
      expect(await types(`/audit-logs/sort-boxes?orderSortId=${at(2)}&sortBoxCrc=AAAA0001`)).toEqual(['6', '5', '4']);
      expect(await types('/audit-logs/sort-box-items')).toEqual(['3', '2']);
      expect(await types('/audit-logs/sort-box-items?picklistId=3&barcode=SKU-A&sortBoxCrc=AAAA0001&orderId=100&userId=7&wallId=1')).toEqual(['2']);
      expect(await types(`/audit-logs/sort-box-items?orderSortId=${at(3)}`)).toEqual([]);
      expect(await types('/audit-logs/sessions?picklistId=3&wallId=1&userId=7')).toEqual(['1']);
      expect(await types('/audit-logs/sessions?picklistId=4')).toEqual([]);
      expect(await types('/audit-logs/walls')).toEqual(['7', '0']);
      expect(await types('/audit-logs/walls?wallId=1')).toEqual(['0']);
      expect(await types('/audit-logs/walls?userId=7')).toEqual([]);
      expect(await types(`/audit-logs/walls?since=${at(0)}`)).toEqual(['7']);
    });

    it('one order sort of one slot: from orderSortId to the next release; orderSortId is required', async () => {
      expect(await types(`/audit-logs/sort-boxes/AAAA0001?orderSortId=${at(2)}`)).toEqual(['6', '5', '4', '2']);
      expect(await types(`/audit-logs/sort-boxes/AAAA0001?orderSortId=${at(2)}&userId=8`)).toEqual(['6', '5']);
      expect(await types(`/audit-logs/sort-boxes/AAAA0001?orderSortId=${at(2)}&licensePlates=true`)).toEqual(['5']);
      expect(await types(`/audit-logs/sort-boxes/AAAA0001?orderSortId=${at(7)}`)).toEqual([]);
      const missing = await get(t.auth, '/audit-logs/sort-boxes/AAAA0001');
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('validation-failed');
    });

    it('initial timestamp: the oldest record of the caller\'s client', async () => {
      const res = await get(t.auth, '/audit-logs/initial-timestamp');
      expect(res.status).toBe(200);
      expect(res.body).toBe(at(0));
      const fresh = await newTenant(api, 'Fresh');
      const now = await get(fresh.auth, '/audit-logs/initial-timestamp');
      expect(Math.abs(Date.parse(now.body) - Date.now())).toBeLessThan(60_000);
    });

    it('client isolation: another client sees only its own records', async () => {
      const res = await get(other.auth, '/audit-logs');
      expect(res.body.map((r: Rec) => r.message)).toEqual(['other client']);
    });

    it('Manager and Admin read; a Sorter gets 403; no token 401', async () => {
      const floor = await buildFloor(api);
      const sorter = await floor.sorter(1);
      const manager = await floor.manager();
      for (const path of ['/audit-logs', '/audit-logs/sort-boxes/AAAA0001?orderSortId=2026-11-20T08:00:00Z', '/audit-logs/sort-boxes', '/audit-logs/sort-box-items', '/audit-logs/sessions', '/audit-logs/walls', '/audit-logs/initial-timestamp']) {
        expect((await get(sorter.auth, path)).status).toBe(403);
        expect((await get(manager.auth, path)).status).toBe(200);
        expect((await get(floor.tenant.auth, path)).status).toBe(200);
        expect((await request(api.app).get(`/api/v1${path}`)).status).toBe(401);
      }
    });
  });
});
