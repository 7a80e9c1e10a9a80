import { randomUUID } from 'node:crypto';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import type { CommandHandlers, CommandJobInfo } from '../../shared/commands/command-job';
import type { CommandPayloads } from '../../shared/commands/commands';
import { partitionOf } from '../../shared/commands/partitioning';
import { startTestApi, type TestApi } from '../support/test-api';
import { buildFloor, connect, type Floor } from '../support/sorting-floor';
import { counts, runWorkerCrashScenario } from '../support/crash-scenario';
import { stopWorkerProcess, type WorkerProcess } from '../support/worker-process';

/*
 * A worker may die in the middle of a command, or be cut off from Redis after it committed. BullMQ
 * then hands the job out again (commands are never retried otherwise); the command must take
 * effect once and its caller must get one answer, the same as if nothing had happened.
 */

jest.setTimeout(90_000);
// The caller waits for a crashed worker's job to be handed out again (lock 5 s + stall check 2.5 s).
process.env.COMMAND_TIMEOUT_MS = '30000';

describe('crash recovery: a worker killed mid-command', () => {
  let api: TestApi;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    api = await startTestApi(); // commands are applied only by the worker processes below
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => stopWorkerProcess(w)));
    await api?.close();
  });

  it('hands the job to another worker, which applies it once and answers the waiting caller', async () => {
    await runWorkerCrashScenario(api, workers);
  });
});

describe('crash recovery: a command delivered twice (same command id) takes effect once', () => {
  let api: TestApi;
  let handlers: CommandHandlers;
  let floor: Floor;
  let sorter: { auth: string; userId: number };
  let token: string;

  beforeAll(async () => {
    // In-process workers only to connect the sorter; the commands under test call the handlers directly.
    api = await startTestApi({ workers: ['sorting'] });
    handlers = sortingHandlers(new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS));
  });
  afterAll(async () => {
    await api?.close();
  });

  beforeEach(async () => {
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 3 }] }] });
    sorter = await floor.sorter(1);
    const session = await connect(api, floor, sorter.auth);
    expect(session.status).toBe(200);
    token = session.body.token as string;
  });

  const job = (jobId: number): CommandJobInfo => ({ commandId: randomUUID(), partition: partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS), jobId });
  const scanPayload = (): CommandPayloads['item.scan'] => ({
    clientId: floor.tenant.clientId,
    wallId: floor.wallId,
    userId: sorter.userId,
    roles: ['Sorter'],
    sessionToken: token,
    barcode: 'SKU-A',
    barcodeInputMethod: 'Scanned',
    idempotencyKey: null,
  });

  it('a scan handed out again answers the first answer and creates no second item', async () => {
    const info = job(1_000_001);
    const once = await handlers['item.scan'](scanPayload(), info);
    const twice = await handlers['item.scan'](scanPayload(), info);
    expect(once.ok).toBe(true);
    expect(twice).toEqual(once);
    expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 1, applied: { 'session.start': 1, 'item.scan': 1 }, pending: 1, confirmed: 0 });

    // A new command (another id) is a new scan.
    const other = await handlers['item.scan'](scanPayload(), job(1_000_002));
    expect(other.ok && once.ok && other.value.id !== once.value.id).toBe(true);
    expect((await counts(api, floor.tenant.clientId)).items).toBe(2);
  });

  it('a confirm handed out again answers Confirmed again (not item-already-confirmed) and counts its units once', async () => {
    const scanned = await handlers['item.scan'](scanPayload(), job(1_000_011));
    if (!scanned.ok) throw new Error(`scan refused: ${scanned.problem.code}`);
    const confirm: CommandPayloads['item.confirm'] = {
      clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], itemId: scanned.value.id, units: 2, barcode: null,
    };
    const info = job(1_000_012);
    const once = await handlers['item.confirm'](confirm, info);
    const twice = await handlers['item.confirm'](confirm, info);
    expect(once).toMatchObject({ ok: true, value: { status: 'Confirmed', confirmedUnits: 2 } });
    expect(twice).toEqual(once);
    expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 1, applied: { 'session.start': 1, 'item.scan': 1, 'item.confirm': 1 }, pending: 0, confirmed: 2 });

    // The same confirm as a new command is refused as docs/api.md §7 says.
    const again = await handlers['item.confirm'](confirm, job(1_000_013));
    expect(again).toMatchObject({ ok: false, problem: { code: 'item-already-confirmed' } });
  });

  it('a refused command delivered twice is refused twice and changes nothing', async () => {
    const payload = { ...scanPayload(), barcode: 'NOPE-404' };
    const info = job(1_000_021);
    const once = await handlers['item.scan'](payload, info);
    const twice = await handlers['item.scan'](payload, info);
    expect(once).toMatchObject({ ok: false, problem: { code: 'barcode-not-recognized' } });
    expect(twice).toEqual(once);
    expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 0, applied: { 'session.start': 1 }, pending: 0, confirmed: 0 });
  });

  it('two deliveries of one scan running at the same time (a stalled job handed out while the first still runs) take effect once', async () => {
    const info = job(1_000_031);
    const [a, b] = await Promise.all([handlers['item.scan'](scanPayload(), info), handlers['item.scan'](scanPayload(), info)]);
    expect(a).toMatchObject({ ok: true });
    expect(b).toEqual(a);
    expect(await counts(api, floor.tenant.clientId)).toEqual({ items: 1, applied: { 'session.start': 1, 'item.scan': 1 }, pending: 1, confirmed: 0 });
  });
});
