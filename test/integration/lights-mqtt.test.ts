import request from 'supertest';
import { loadConfig } from '../../shared/config/config';
import { createRuntime, type Runtime } from '../../shared/runtime/runtime';
import { startWorkers } from '../../workers/registry';
import { VirtualLightController, type ShownLight } from '../../services/simulator/virtual-controller';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { startOwnMosquitto, type OwnMosquitto } from '../support/own-mosquitto';
import { addSlots, addWall } from '../support/fixtures';

/*
 * A wall of virtual controllers follows a shift (docs/lights.md): after every step the retained light
 * of every slot, as a controller reads it from the broker, equals what the wall's state says, stated
 * here in plain words (not with the gateway's own light model): a slot with pending scans shows their
 * sorters' colors, oldest first, with their units on the digits; a Complete slot lights its back; every
 * other light is dark. Buttons confirm and refuse; the lights are right again after a gateway restart
 * and after a broker restart that lost every retained message. The broker is the test's own.
 *
 * The gateway sets every wall of the database, so the broker holds the lights of other walls too, as
 * on a real floor and as in the full suite (other suites' walls, created before this one's): more than
 * a broker queues for one client at once (Mosquitto: 1,000 queued + 20 in flight, then it drops), so a
 * gateway that read the broker's retained lights in one subscription would miss some of them.
 */

jest.setTimeout(600_000);
// Generous: a gateway that (re)starts sets the lights of every wall of this jest worker's database.
const STEP_MS = 60_000;
/** Slots on other walls, created before this test's wall: their lights alone pass the broker's 1,020. */
const OTHER_WALLS = 8;
const OTHER_SLOTS = 70;

interface WallRead {
  slots: { serialNumber: string; crc: string; position: number; status: string }[];
  pendingItems: { id: number; crc: string; color: string; units: number; createdAt: string }[];
}

describe('light gateway over MQTT: every light right at every step', () => {
  let broker: OwnMosquitto;
  let api: TestApi;
  let gateway: Runtime | null = null;
  let floor: Floor;
  let vc: VirtualLightController;

  const startGateway = async () => {
    const config = loadConfig({ ...process.env, MQTT_URL: broker.url, LIGHTS_RESYNC_MS: '600000', LIGHTS_CONTROLLER_TIMEOUT_MS: '3000' });
    gateway = await createRuntime('test-lights', { config });
    await startWorkers(gateway, ['lights']);
  };
  const stopGateway = async () => {
    await gateway?.close();
    gateway = null;
  };

  beforeAll(async () => {
    broker = await startOwnMosquitto();
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    const others = await buildFloor(api, { slots: OTHER_SLOTS });
    const em = api.runtime.orm.em.fork();
    for (let i = 1; i < OTHER_WALLS; i++) await addSlots(em, others.tenant.clientId, (await addWall(em, others.tenant.clientId, { warehouseId: others.warehouseId })).id, OTHER_SLOTS);
    floor = await buildFloor(api, {
      slots: 6,
      products: [{ sku: 'SKU-A' }, { sku: 'SKU-B' }, { sku: 'SKU-C' }],
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 2 }] },
        { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] },
      ],
    });
    await startGateway();
    const wall = await read();
    vc = await VirtualLightController.connect({ url: broker.url, clientId: floor.tenant.clientId, controllerId: 'vc-1', serialNumbers: wall.slots.map((s) => s.serialNumber), heartbeatMs: 500 });
  });

  afterAll(async () => {
    await vc?.close().catch(() => undefined);
    await stopGateway();
    await api?.close();
    await broker?.close();
  });

  async function read(): Promise<WallRead> {
    const res = await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth);
    expect(res.status).toBe(200);
    return res.body as WallRead;
  }

  /** What every light must show, from the wall's state in plain words. */
  function expected(wall: WallRead): Record<string, { front: Partial<ShownLight>; back: Partial<ShownLight> }> {
    const out: Record<string, { front: Partial<ShownLight>; back: Partial<ShownLight> }> = {};
    for (const slot of wall.slots) {
      const mine = wall.pendingItems.filter((p) => p.crc === slot.crc).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
      const colors = [...new Set(mine.map((p) => p.color))];
      out[slot.serialNumber] = {
        front: mine.length
          ? { on: true, colors, blink: colors.length > 1 ? 'alternate' : 'steady', digits: String(mine.reduce((n, p) => n + p.units, 0)), crc: slot.crc, position: slot.position }
          : { on: false, colors: [], digits: '', crc: slot.crc, position: slot.position },
        back: slot.status === 'Complete' ? { on: true, colors: ['Green'], blink: 'steady' } : { on: false, colors: [] },
      };
    }
    return out;
  }

  function shown(serials: string[]) {
    const out: Record<string, { front: Partial<ShownLight>; back: Partial<ShownLight> } | null> = {};
    for (const s of serials) {
      const l = vc.lights.get(s);
      out[s] = l?.front && l.back ? { front: pick(l.front, true), back: pick(l.back, false) } : null;
    }
    return out;
  }
  const pick = (l: ShownLight, front: boolean): Partial<ShownLight> =>
    front
      ? l.on
        ? { on: l.on, colors: l.colors, blink: l.blink, digits: l.digits, crc: l.crc, position: l.position }
        : { on: false, colors: l.colors, digits: l.digits, crc: l.crc, position: l.position }
      : l.on
        ? { on: true, colors: l.colors, blink: l.blink }
        : { on: false, colors: l.colors };

  /** Waits until every slot's retained lights equal the wall's state; the failure message shows both. */
  async function lightsRight(step: string): Promise<WallRead> {
    let wall = await read();
    let last = '';
    try {
      await waitFor(
        async () => {
          wall = await read();
          const want = expected(wall);
          const have = shown(Object.keys(want));
          last = JSON.stringify({ want, have }, null, 1);
          return JSON.stringify(want) === JSON.stringify(have);
        },
        { timeoutMs: STEP_MS, intervalMs: 50, what: `the lights after: ${step}` },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${last}`);
    }
    return wall;
  }

  const serialOf = (wall: WallRead, crc: string) => wall.slots.find((s) => s.crc === crc)!.serialNumber;
  const flashed = (serial: string, color: string, since: number) =>
    vc.history.some((h) => h.at >= since && h.serialNumber === serial && h.side === 'front' && h.light?.on && h.light.blink === 'fast' && h.light.colors[0] === color);

  it('follows a shift: scans, two sorters in one slot, a wrong slot, buttons, completion, release; a gateway restart; a broker restart', async () => {
    const a = await floor.sorter(1);
    const b = await floor.sorter(2);
    const sa = (await connect(api, floor, a.auth)).body;
    const sb = (await connect(api, floor, b.auth)).body;
    let wall = await lightsRight('nothing scanned yet');

    // A Red scan lights its slot; a Blue scan of the same order joins it: both colors, 2 units.
    const first = (await scan(api, a.auth, sa.token, 'SKU-A')).body;
    await lightsRight('a scan');
    const second = (await scan(api, b.auth, sb.token, 'SKU-A')).body;
    expect(second.crc).toBe(first.crc);
    wall = await lightsRight('a second sorter in the same slot');
    expect(vc.lights.get(serialOf(wall, first.crc))!.front).toMatchObject({ colors: ['Red', 'Blue'], blink: 'alternate', digits: '2' });

    // A wrong slot: it flashes red, the right one flashes in the sorter's color, then both show the truth.
    const wrong = wall.slots.find((s) => s.crc !== first.crc)!;
    const before = Date.now();
    const refused = await request(api.app).patch(`/api/v1/sort-box-items/${first.id}/confirm`).set('Authorization', a.auth).send({ barcode: `A-${wrong.crc}` });
    expect(refused.body.code).toBe('wrong-slot');
    await waitFor(() => flashed(wrong.serialNumber, 'Red', before) && flashed(serialOf(wall, first.crc), 'Red', before), { timeoutMs: STEP_MS, what: 'the wrong slot and the right one to flash' });
    await lightsRight('the flash of a wrong slot is over');

    // The confirm button on the lit slot confirms its oldest scan (Red's), as Red.
    const pressed = Date.now();
    await vc.press(serialOf(wall, first.crc), 'confirm');
    await waitFor(async () => (await request(api.app).get(`/api/v1/sort-box-items/${first.id}`).set('Authorization', a.auth)).body.status === 'Confirmed', {
      timeoutMs: STEP_MS,
      what: 'the button to confirm the oldest scan',
    });
    wall = await lightsRight('a confirm button');
    expect(wall.pendingItems.map((p) => p.id)).toEqual([second.id]);

    // A button on a dark slot is refused on the device: it flashes red, and the hub and audit get lights.button.
    const dark = wall.slots.find((s) => s.crc !== first.crc && s.status === 'Empty')!;
    await vc.press(dark.serialNumber, 'confirm');
    await waitFor(() => flashed(dark.serialNumber, 'Red', pressed), { timeoutMs: STEP_MS, what: 'a refused button to flash red' });
    await waitFor(
      async () =>
        (await api.runtime.orm.em.fork().execute(`select 1 from outbox_event where client_id = ? and type = 'lights.button' and data->>'code' = 'nothing-to-confirm'`, [floor.tenant.clientId])).length === 1,
      { timeoutMs: STEP_MS, what: 'the lights.button event' },
    );
    await lightsRight('a refused button');

    // The short button cancels the slot's oldest scan (Blue's) with a reason, recorded for the audit.
    await vc.press(serialOf(wall, first.crc), 'short');
    await waitFor(async () => (await request(api.app).get(`/api/v1/sort-box-items/${second.id}`).set('Authorization', b.auth)).body.status === 'Cancelled', {
      timeoutMs: STEP_MS,
      what: 'the short button to cancel',
    });
    const [cancelled] = await api.runtime.orm.em
      .fork()
      .execute<{ data: { reason?: string; item: { id: number } } }[]>(`select data from outbox_event where client_id = ? and type = 'sort-box-item.cancelled'`, [floor.tenant.clientId]);
    expect(cancelled!.data).toMatchObject({ reason: 'short-button', item: { id: second.id } });
    await lightsRight('a short button');

    // Another order, confirmed by scan: complete, the shipper's side lights.
    const third = (await scan(api, b.auth, sb.token, 'SKU-B')).body;
    await lightsRight('a scan of another order');
    await request(api.app).patch(`/api/v1/sort-box-items/${third.id}/confirm`).set('Authorization', b.auth).send({ barcode: `A-${third.crc}` }).expect(200);
    wall = await lightsRight('an order complete');
    expect(vc.lights.get(serialOf(wall, third.crc))!.back).toMatchObject({ on: true, colors: ['Green'] });

    // The gateway stops; meanwhile the shipper releases, a sorter scans, a slot is detached. Its
    // retained light is stale until the gateway is back: then every light is right and the detached
    // slot's retained lights are gone.
    await stopGateway();
    await request(api.app).post(`/api/v1/sort-boxes/B-${third.crc}/release`).set('Authorization', floor.tenant.auth).expect(200);
    const fourth = (await scan(api, a.auth, sa.token, 'SKU-A')).body;
    const manager = await floor.manager();
    const detached = wall.slots.at(-1)!;
    await request(api.app).delete(`/api/v1/walls/${floor.wallId}/sort-boxes/${detached.crc}`).set('Authorization', manager.auth).expect(200);
    expect(vc.lights.get(detached.serialNumber)!.front).not.toBeNull();
    await startGateway();
    wall = await lightsRight('a gateway restart');
    await waitFor(() => vc.lights.get(detached.serialNumber)!.front === null && vc.lights.get(detached.serialNumber)!.back === null, {
      timeoutMs: STEP_MS,
      what: "the detached slot's retained lights to be cleared",
    });

    // The broker dies and comes back empty (no persistence); meanwhile the order completes. Every light is
    // published again; the controller, reconnected, reads them.
    await broker.kill();
    await request(api.app).patch(`/api/v1/sort-box-items/${fourth.id}/confirm`).set('Authorization', a.auth).send({ barcode: `A-${fourth.crc}` }).expect(200);
    await request(api.app).patch(`/api/v1/sort-box-items/${fourth.id}/confirm`).set('Authorization', a.auth).expect(409);
    await broker.start();
    wall = await lightsRight('a broker restart');
    expect(wall.slots.find((s) => s.crc === fourth.crc)!.status).toBe('Complete');
  });

  it('a light test and the show-address mode reach every light and end; controllers online and offline reach the API, the hub and /metrics', async () => {
    const manager = await floor.manager();
    let wall = await lightsRight('before the modes');
    const lights = await request(api.app).get(`/api/v1/walls/${floor.wallId}/lights`).set('Authorization', manager.auth).expect(200);
    expect(lights.body).toMatchObject({ wallId: floor.wallId, mode: 'normal', modeUntil: null, slotsWithoutController: [] });
    expect(lights.body.controllers).toEqual([
      expect.objectContaining({ id: 'vc-1', driver: 'mqtt', online: true, slots: wall.slots.map((s) => ({ serialNumber: s.serialNumber, crc: s.crc, position: s.position })) }),
    ]);

    // The light test: every light steps through the LED channels, digits all lit; ended, the truth again.
    const since = Date.now();
    const test = await request(api.app).post(`/api/v1/walls/${floor.wallId}/lights/test`).set('Authorization', manager.auth).send({ seconds: 30 }).expect(200);
    expect(test.body.mode).toBe('test');
    const stepped = (color: string) =>
      wall.slots.every((s) => vc.history.some((h) => h.at >= since && h.serialNumber === s.serialNumber && h.light?.colors[0] === color && h.light.digits === '88888'));
    await waitFor(() => stepped('Red') && stepped('Green'), { timeoutMs: STEP_MS, what: 'every light to step through red and green' });
    await request(api.app).delete(`/api/v1/walls/${floor.wallId}/lights/mode`).set('Authorization', manager.auth).expect(200);
    await lightsRight('the end of a light test');

    // Show-address: white, each slot's position; a button then only flashes white (a button test).
    await request(api.app).post(`/api/v1/walls/${floor.wallId}/lights/show-address`).set('Authorization', manager.auth).expect(200);
    await waitFor(
      () => wall.slots.every((s) => vc.lights.get(s.serialNumber)?.front?.digits === String(s.position) && vc.lights.get(s.serialNumber)?.back?.colors[0] === 'White'),
      { timeoutMs: STEP_MS, what: 'every slot to show its position' },
    );
    const pressedAt = Date.now();
    await vc.press(wall.slots[0]!.serialNumber, 'confirm');
    await waitFor(() => flashed(wall.slots[0]!.serialNumber, 'White', pressedAt), { timeoutMs: STEP_MS, what: 'a button test to flash white' });
    await request(api.app).delete(`/api/v1/walls/${floor.wallId}/lights/mode`).set('Authorization', manager.auth).expect(200);
    wall = await lightsRight('the end of show-address');

    // Who may: a Sorter reads, only a Manager starts a mode; another client's wall is not found.
    const sorter = await floor.sorter(1);
    await request(api.app).get(`/api/v1/walls/${floor.wallId}/lights`).set('Authorization', sorter.auth).expect(200);
    expect((await request(api.app).post(`/api/v1/walls/${floor.wallId}/lights/test`).set('Authorization', sorter.auth)).body.code).toBe('forbidden');
    const other = await buildFloor(api);
    await request(api.app).post(`/api/v1/walls/${other.wallId}/lights/test`).set('Authorization', manager.auth).expect(404);
    await request(api.app).get(`/api/v1/walls/${other.wallId}/lights`).set('Authorization', manager.auth).expect(404);
    expect((await request(api.app).post(`/api/v1/walls/${floor.wallId}/lights/test`).set('Authorization', manager.auth).send({ seconds: 0 })).status).toBe(400);

    // The controller dies (its last will): offline in the API, in an event for the hub, in /metrics.
    await vc.close({ clean: false });
    const offline = async () => (await request(api.app).get(`/api/v1/walls/${floor.wallId}/lights`).set('Authorization', manager.auth)).body.controllers[0]?.online === false;
    await waitFor(offline, { timeoutMs: STEP_MS, what: 'the controller offline after its last will' });
    const events = await api.runtime.orm.em
      .fork()
      .execute<{ online: boolean }[]>(`select (data->'controller'->>'online')::boolean as online from outbox_event where wall_id = ? and type = 'lights.controller' order by id`, [floor.wallId]);
    expect(events.map((e) => e.online)).toEqual([true, false]);
    const metrics = (await request(api.app).get('/metrics').expect(200)).text;
    expect(Number(/^light_controllers\{state="offline"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);

    // A controller that announces itself and then falls silent is offline after LIGHTS_CONTROLLER_TIMEOUT_MS (3 s here).
    const silent = await VirtualLightController.connect({ url: broker.url, clientId: floor.tenant.clientId, controllerId: 'vc-silent', serialNumbers: [wall.slots[0]!.serialNumber], heartbeatMs: 3_600_000 });
    const state = async () =>
      (await api.runtime.orm.em.fork().execute<{ online: boolean }[]>(`select online from light_controller where client_id = ? and controller_id = 'vc-silent'`, [floor.tenant.clientId]))[0]?.online;
    await waitFor(async () => (await state()) === true, { timeoutMs: STEP_MS, what: 'the silent controller online first' });
    await waitFor(async () => (await state()) === false, { timeoutMs: STEP_MS, what: 'the silent controller offline' });
    await silent.close();
  });

  it("refuses the confirm button on a slot whose unit needs its serial number (a button cannot give one); the short button still cancels", async () => {
    const serialFloor = await buildFloor(api, { slots: 2, products: [{ sku: 'DRILL-18V', requiresSerial: true }], orders: [{ id: 7, items: [{ sku: 'DRILL-18V', qty: 1 }] }] });
    const wall = (await request(api.app).get(`/api/v1/walls/${serialFloor.wallId}`).set('Authorization', serialFloor.tenant.auth).expect(200)).body as WallRead;
    const device = await VirtualLightController.connect({
      url: broker.url, clientId: serialFloor.tenant.clientId, controllerId: 'vc-serial', serialNumbers: wall.slots.map((s) => s.serialNumber), heartbeatMs: 500,
    });
    try {
      const sorter = await serialFloor.sorter(1);
      const session = (await connect(api, serialFloor, sorter.auth)).body;
      const item = (await scan(api, sorter.auth, session.token, 'DRILL-18V')).body;
      expect(item.requiresSerial).toBe(true);
      const serialNumber = wall.slots.find((s) => s.crc === item.crc)!.serialNumber;
      await waitFor(() => device.lights.get(serialNumber)?.front?.on === true, { timeoutMs: STEP_MS, what: 'the slot lit' });
      const pressed = Date.now();
      await device.press(serialNumber, 'confirm');
      const event = async () =>
        (await api.runtime.orm.em.fork().execute<{ data: { code: string; detail: string } }[]>(
          `select data from outbox_event where wall_id = ? and type = 'lights.button'`, [serialFloor.wallId]))[0];
      await waitFor(async () => Boolean(await event()), { timeoutMs: STEP_MS, what: 'the lights.button event' });
      expect((await event())!.data).toMatchObject({ code: 'serial-required', detail: expect.stringContaining('serial number') });
      await waitFor(
        () => device.history.some((h) => h.at >= pressed && h.serialNumber === serialNumber && h.side === 'front' && h.light?.on && h.light.blink === 'fast' && h.light.colors[0] === 'Red'),
        { timeoutMs: STEP_MS, what: 'the refused button to flash red' },
      );
      // No command was sent: the scan waits for its confirm with a serial.
      expect((await request(api.app).get(`/api/v1/sort-box-items/${item.id}`).set('Authorization', sorter.auth)).body.status).toBe('PendingConfirmation');
      await device.press(serialNumber, 'short');
      await waitFor(async () => (await request(api.app).get(`/api/v1/sort-box-items/${item.id}`).set('Authorization', sorter.auth)).body.status === 'Cancelled', {
        timeoutMs: STEP_MS,
        what: 'the short button to cancel',
      });
    } finally {
      await device.close();
    }
  });
});
