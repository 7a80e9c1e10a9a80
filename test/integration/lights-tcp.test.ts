import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { loadConfig } from '../../shared/config/config';
import { createRuntime, type Runtime } from '../../shared/runtime/runtime';
import { startWorkers } from '../../workers/registry';
import { SimulatedPtlController } from '../../services/simulator/ptl-controller';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/*
 * The TCP pick-to-light driver against the project's simulated controller (docs/lights.md): nodes
 * mapped to slots by serial number in LIGHTS_TCP_CONTROLLERS show the wall's state, buttons confirm
 * and refuse, a controller that loses power gets every node again when it is back, and a controller
 * that stops answering is offline for the hub and /metrics.
 */

jest.setTimeout(120_000);
const STEP_MS = 20_000;

interface WallRead {
  slots: { serialNumber: string; crc: string; position: number; status: string }[];
  pendingItems: { id: number; crc: string; color: string; units: number }[];
}

describe('light gateway over TCP (pick-to-light controller)', () => {
  let api: TestApi;
  let gateway: Runtime;
  let floor: Floor;
  let controller: SimulatedPtlController;
  let dir: string;
  let wall: WallRead;
  // Slot at position p: front node p, back node 10 + p.
  const front = (p: number) => p;
  const back = (p: number) => 10 + p;

  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    floor = await buildFloor(api, {
      slots: 4,
      products: [{ sku: 'SKU-A' }, { sku: 'SKU-B' }],
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 1 }] },
        { id: 2, items: [{ sku: 'SKU-B', qty: 1 }] },
      ],
    });
    wall = await read();
    controller = new SimulatedPtlController(wall.slots.flatMap((s) => [front(s.position), back(s.position)]));
    const port = await controller.listen();
    dir = mkdtempSync(path.join(tmpdir(), 'sorting-ptl-'));
    const file = path.join(dir, 'controllers.json');
    const nodes = wall.slots.flatMap((s) => [
      { node: front(s.position), serialNumber: s.serialNumber, side: 'front' },
      { node: back(s.position), serialNumber: s.serialNumber, side: 'back' },
    ]);
    writeFileSync(file, JSON.stringify({ controllers: [{ id: 'aisle-1', clientId: floor.tenant.clientId, host: '127.0.0.1', port, nodes }] }));
    const config = loadConfig({ ...process.env, MQTT_URL: 'off', LIGHTS_TCP_CONTROLLERS: file, LIGHTS_TCP_HEARTBEAT_MS: '200', LIGHTS_RESYNC_MS: '600000' });
    gateway = await createRuntime('test-lights-tcp', { config });
    await startWorkers(gateway, ['lights']);
  });

  afterAll(async () => {
    await gateway?.close();
    await controller?.stop();
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function read(): Promise<WallRead> {
    const res = await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth);
    return res.body as WallRead;
  }

  async function nodesRight(step: string): Promise<void> {
    let last = '';
    try {
      await waitFor(
        async () => {
          wall = await read();
          const want: Record<number, unknown> = {};
          const have: Record<number, unknown> = {};
          for (const s of wall.slots) {
            const mine = wall.pendingItems.filter((p) => p.crc === s.crc);
            const colors = [...new Set(mine.map((p) => p.color))];
            want[front(s.position)] = mine.length ? { on: true, colors, digits: String(mine.reduce((n, p) => n + p.units, 0)) } : { on: false };
            want[back(s.position)] = s.status === 'Complete' ? { on: true, colors: ['Green'], digits: '' } : { on: false };
            for (const n of [front(s.position), back(s.position)]) {
              const shows = controller.shows(n);
              have[n] = shows.on ? { on: true, colors: shows.colors, digits: shows.digits } : { on: false };
            }
          }
          last = JSON.stringify({ want, have });
          return JSON.stringify(want) === JSON.stringify(have);
        },
        { timeoutMs: STEP_MS, intervalMs: 50, what: `the nodes after: ${step}` },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${last}`);
    }
  }

  const controllerRow = async () =>
    (await api.runtime.orm.em.fork().execute<{ online: boolean; serial_numbers: string[] }[]>(`select online, serial_numbers from light_controller where client_id = ? and controller_id = 'aisle-1'`, [floor.tenant.clientId]))[0];
  const controllerEvents = async () =>
    (await api.runtime.orm.em.fork().execute<{ wall_id: number; online: boolean }[]>(
      `select wall_id, (data->'controller'->>'online')::boolean as online from outbox_event where client_id = ? and type = 'lights.controller' order by id`,
      [floor.tenant.clientId],
    ));

  it('nodes follow the wall; confirm and short buttons; a refused press flashes red; a power cut and a hung controller', async () => {
    await waitFor(async () => (await controllerRow())?.online === true, { timeoutMs: STEP_MS, what: 'the controller online' });
    expect((await controllerRow())!.serial_numbers.sort()).toEqual(wall.slots.map((s) => s.serialNumber).sort());
    expect(await controllerEvents()).toEqual([{ wall_id: floor.wallId, online: true }]);
    await nodesRight('connecting');

    const a = await floor.sorter(1);
    const session = (await connect(api, floor, a.auth)).body;
    const item = (await scan(api, a.auth, session.token, 'SKU-A')).body;
    await nodesRight('a scan');
    expect(controller.shows(front(item.position))).toMatchObject({ on: true, colors: ['Red'], blink: 'steady', digits: '1' });

    // The confirm button confirms it; the order is complete: the back node lights.
    controller.press(front(item.position), 'confirm');
    await waitFor(async () => (await request(api.app).get(`/api/v1/sort-box-items/${item.id}`).set('Authorization', a.auth)).body.status === 'Confirmed', {
      timeoutMs: STEP_MS,
      what: 'the confirm button to confirm',
    });
    await nodesRight('a confirm button');
    expect(controller.shows(back(item.position))).toMatchObject({ on: true, colors: ['Green'] });

    // A press on a dark slot flashes it red (fast), then it is dark again.
    const dark = wall.slots.find((s) => s.status === 'Empty')!;
    controller.press(front(dark.position), 'confirm');
    await waitFor(() => controller.shows(front(dark.position)).blink === 'fast' && controller.shows(front(dark.position)).colors[0] === 'Red', {
      timeoutMs: STEP_MS,
      what: 'the refused press to flash red',
    });
    await nodesRight('a refused press');

    // The short button cancels.
    const other = (await scan(api, a.auth, session.token, 'SKU-B')).body;
    await nodesRight('another scan');
    controller.press(front(other.position), 'short');
    await waitFor(async () => (await request(api.app).get(`/api/v1/sort-box-items/${other.id}`).set('Authorization', a.auth)).body.status === 'Cancelled', {
      timeoutMs: STEP_MS,
      what: 'the short button to cancel',
    });
    await nodesRight('a short button');

    // A power cut: every display blank, the connection gone (offline). Meanwhile a scan. Back: every node again.
    const port = controller.port;
    await controller.stop();
    await waitFor(async () => (await controllerRow())?.online === false, { timeoutMs: STEP_MS, what: 'the controller offline' });
    const again = (await scan(api, a.auth, session.token, 'SKU-B')).body;
    await controller.listen(port);
    await waitFor(async () => (await controllerRow())?.online === true, { timeoutMs: STEP_MS, what: 'the controller online again' });
    await nodesRight('the controller back after a power cut');
    expect(controller.shows(front(again.position)).on).toBe(true);

    // A hung controller (connected, silent): offline after three missed heartbeats, online once it answers again.
    controller.silent = true;
    await waitFor(async () => (await controllerRow())?.online === false, { timeoutMs: STEP_MS, what: 'a silent controller offline' });
    controller.silent = false;
    await waitFor(async () => (await controllerRow())?.online === true, { timeoutMs: STEP_MS, what: 'the controller online after answering again' });
    await nodesRight('the controller answering again');
    expect((await controllerEvents()).map((e) => e.online)).toEqual([true, false, true, false, true]);
  });
});
