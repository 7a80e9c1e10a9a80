import request from 'supertest';
import { loadConfig } from '../../shared/config/config';
import { createRuntime, type Runtime } from '../../shared/runtime/runtime';
import { startWorkers } from '../../workers/registry';
import * as consumerQueries from '../../workers/pipeline/consumer.queries';
import { VirtualLightController } from '../../services/simulator/virtual-controller';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { startOwnMosquitto, type OwnMosquitto } from '../support/own-mosquitto';

/*
 * The light gateway in the process of the relay, as `npm start`'s pipeline process runs them
 * (docs/lights.md): each relay step's events reach the gateway from memory, with no read of the outbox,
 * and the lights follow scans and confirms; after a restart of that process (its relay becomes the
 * active one again, the gateway starts from its saved position) they still do.
 */

jest.setTimeout(300_000);
const STEP_MS = 60_000;

describe('light gateway fed by the relay of its process', () => {
  let broker: OwnMosquitto;
  let api: TestApi;
  let pipeline: Runtime | null = null;
  let floor: Floor;
  let vc: VirtualLightController;
  // The gateway's reads of the outbox (the only consumer of these processes).
  const reads = jest.spyOn(consumerQueries, 'nextEvents');
  const lightsReads = () => reads.mock.calls.filter(([, p]) => p.name === 'lights').length;

  const startPipeline = async () => {
    const config = loadConfig({ ...process.env, MQTT_URL: broker.url, LIGHTS_RESYNC_MS: '600000', LIGHTS_CONTROLLER_TIMEOUT_MS: '3000' });
    pipeline = await createRuntime('test-pipeline', { config });
    await startWorkers(pipeline, ['outbox', 'lights']);
  };
  const stopPipeline = async () => {
    await pipeline?.close();
    pipeline = null;
  };

  beforeAll(async () => {
    broker = await startOwnMosquitto();
    api = await startTestApi({ workers: ['sorting'] });
    floor = await buildFloor(api, {
      slots: 4,
      products: [{ sku: 'SKU-A' }, { sku: 'SKU-B' }, { sku: 'SKU-C' }],
      orders: [
        { id: 1, items: [{ sku: 'SKU-A', qty: 2 }] },
        { id: 2, items: [{ sku: 'SKU-B', qty: 2 }] },
        { id: 3, items: [{ sku: 'SKU-C', qty: 2 }] },
      ],
    });
    await startPipeline();
    const serials = (await api.runtime.orm.em.fork().execute<{ serial_number: string }[]>('select serial_number from sort_box where wall_id = ?', [floor.wallId])).map((r) => r.serial_number);
    vc = await VirtualLightController.connect({ url: broker.url, clientId: floor.tenant.clientId, controllerId: 'vc-feed', serialNumbers: serials, heartbeatMs: 500 });
  });

  afterAll(async () => {
    reads.mockRestore();
    await vc?.close().catch(() => undefined);
    await stopPipeline();
    await api?.close();
    await broker?.close();
  });

  const serialOf = async (crc: string) =>
    (await api.runtime.orm.em.fork().execute<{ serial_number: string }[]>('select serial_number from sort_box where wall_id = ? and crc = ?', [floor.wallId, crc]))[0]!.serial_number;
  /** Waits until the slot's front light shows `digits` units (lit), or is dark (null). */
  const front = async (crc: string, digits: string | null, what: string) => {
    const serial = await serialOf(crc);
    await waitFor(
      () => {
        const l = vc.lights.get(serial)?.front;
        return digits === null ? l?.on === false : l?.on === true && l.digits === digits;
      },
      { timeoutMs: STEP_MS, intervalMs: 25, what },
    );
  };
  const confirm = (auth: string, id: number, crc: string) =>
    request(api.app).patch(`/api/v1/sort-box-items/${id}/confirm`).set('Authorization', auth).send({ barcode: `A-${crc}` }).expect(200);

  it('follows scans and confirms from the steps handed over, and again after a restart of the process', async () => {
    const a = await floor.sorter(1);
    const session = (await connect(api, floor, a.auth)).body;
    // The first batch may read the outbox: the gateway has no position of its own yet.
    const first = (await scan(api, a.auth, session.token, 'SKU-A')).body;
    await front(first.crc, '1', 'a scan lit');
    const before = lightsReads();
    const second = (await scan(api, a.auth, session.token, 'SKU-B')).body;
    await front(second.crc, '1', 'a second slot lit');
    await confirm(a.auth, first.id, first.crc);
    await front(first.crc, null, 'a confirm dark');
    const third = (await scan(api, a.auth, session.token, 'SKU-A')).body;
    expect(third.crc).toBe(first.crc);
    await front(first.crc, '1', 'the slot lit again');
    await confirm(a.auth, second.id, second.crc);
    await front(second.crc, null, 'the second slot dark');
    expect(lightsReads()).toBe(before);

    // A restart of the process: the relay becomes the active one, the gateway reads from its saved position.
    await stopPipeline();
    const fourth = (await scan(api, a.auth, session.token, 'SKU-C')).body;
    await startPipeline();
    await front(fourth.crc, '1', 'a scan made while the process was down');
    expect(lightsReads()).toBeGreaterThan(before);
    await confirm(a.auth, third.id, third.crc);
    await front(third.crc, null, 'a confirm after the restart');
    await confirm(a.auth, fourth.id, fourth.crc);
    await front(fourth.crc, null, 'the last slot dark');
  });
});
