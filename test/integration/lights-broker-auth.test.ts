import { readFileSync } from 'node:fs';
import path from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import request from 'supertest';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';
import { startOwnMosquitto, type OwnMosquitto } from '../support/own-mosquitto';
import { spawnWorkerProcess, stopWorkerProcess, type WorkerProcess } from '../support/worker-process';

/*
 * The slot lights' broker behind credentials (docs/lights.md, "Broker credentials"), with the ACL the
 * repository ships (mosquitto/acl) and a controller section per wall written as the docs say: nobody
 * connects without a password; a controller presses buttons and reads lights of its own wall only; the
 * light gateway signs in with the user and password of MQTT_URL (never logged) and says it is gone by
 * its last will, retained, when its process dies.
 */

jest.setTimeout(180_000);
const ROOT = path.resolve(__dirname, '../..');
const SERVICE_PASSWORD = 'service-pass-Zq81';

/** A controller user's section of the ACL, as docs/lights.md writes it. */
function controllerAcl(user: string, clientId: number, wallId: number): string {
  return [
    `user ${user}`,
    `topic read sorting/${clientId}/walls/${wallId}/slots/+/front`,
    `topic read sorting/${clientId}/walls/${wallId}/slots/+/back`,
    `topic write sorting/${clientId}/walls/${wallId}/slots/+/button`,
    `topic write sorting/${clientId}/controllers/${user}/status`,
    `topic write sorting/${clientId}/controllers/${user}/heartbeat`,
    'topic read sorting/gateway/status',
    '',
  ].join('\n');
}

async function mqttConnect(url: string, opts: mqtt.IClientOptions = {}): Promise<MqttClient> {
  const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 5000, ...opts });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  return client;
}

/** Connecting refused: the broker's CONNACK error. */
async function refused(url: string, opts: mqtt.IClientOptions = {}): Promise<string> {
  const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 5000, ...opts });
  try {
    return await new Promise<string>((resolve, reject) => {
      client.once('connect', () => reject(new Error('the broker accepted the connection')));
      client.once('error', (err) => resolve(err.message));
    });
  } finally {
    client.end(true);
  }
}

describe('the lights broker with credentials and an ACL', () => {
  let broker: OwnMosquitto;
  let api: TestApi;
  let a: Floor;
  let b: Floor;
  let gateway: WorkerProcess | null = null;
  const clients: MqttClient[] = [];
  const serials = new Map<number, string[]>();

  /** A wait whose failure shows what the gateway logged (its press outcomes, its broker connection). */
  const withGatewayLog = <T>(wait: Promise<T>): Promise<T> =>
    wait.catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n----- the light gateway's output -----\n${gateway?.output.slice(-8_000) ?? '(not started)'}`);
    });
  const item = async (floor: Floor, id: number) =>
    (await request(api.app).get(`/api/v1/sort-box-items/${id}`).set('Authorization', floor.tenant.auth)).body as { status: string };

  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting', 'outbox'] });
    const orders = [{ id: 1, items: [{ sku: 'SKU-A', qty: 3 }] }];
    a = await buildFloor(api, { slots: 2, orders });
    b = await buildFloor(api, { slots: 2, orders });
    for (const f of [a, b]) {
      const wall = await request(api.app).get(`/api/v1/walls/${f.wallId}`).set('Authorization', f.tenant.auth);
      serials.set(f.wallId, (wall.body.slots as { serialNumber: string; position: number }[]).sort((x, y) => x.position - y.position).map((s) => s.serialNumber));
    }
    const acl = readFileSync(path.join(ROOT, 'mosquitto/acl'), 'utf8') + '\n' + controllerAcl('ctrl-a', a.tenant.clientId, a.wallId) + controllerAcl('ctrl-b', b.tenant.clientId, b.wallId);
    broker = await startOwnMosquitto({ auth: { users: { 'sorting-service': SERVICE_PASSWORD, 'ctrl-a': 'ctrl-a-pass', 'ctrl-b': 'ctrl-b-pass' }, acl } });
  });
  afterAll(async () => {
    for (const c of clients) c.end(true);
    if (gateway) await stopWorkerProcess(gateway, 'SIGKILL');
    await api?.close();
    await broker?.close();
  });

  it('lets nobody in without a password, nor with a wrong one', async () => {
    expect(await refused(broker.url)).toMatch(/Not authorized|Bad username or password/i);
    expect(await refused(broker.url, { username: 'ctrl-a', password: 'wrong' })).toMatch(/Not authorized|Bad username or password/i);
  });

  it('a controller presses buttons and reads lights of its own wall only; the gateway signs in from MQTT_URL and never logs the password', async () => {
    const url = new URL(broker.url);
    url.username = 'sorting-service';
    url.password = SERVICE_PASSWORD;
    gateway = spawnWorkerProcess('lights', { kind: 'lights', direct: true, env: { MQTT_URL: url.toString(), LIGHTS_RESYNC_MS: '600000' } });

    // The gateway is online (retained), as any controller reads it.
    const ctrlA = await mqttConnect(broker.url, { username: 'ctrl-a', password: 'ctrl-a-pass', clientId: 'ctrl-a' });
    const ctrlB = await mqttConnect(broker.url, { username: 'ctrl-b', password: 'ctrl-b-pass', clientId: 'ctrl-b' });
    clients.push(ctrlA, ctrlB);
    const seen: { client: string; topic: string; payload: string }[] = [];
    ctrlA.on('message', (topic, payload) => seen.push({ client: 'a', topic, payload: payload.toString() }));
    ctrlB.on('message', (topic, payload) => seen.push({ client: 'b', topic, payload: payload.toString() }));
    await ctrlA.subscribeAsync('sorting/gateway/status', { qos: 1 });
    await waitFor(() => seen.some((m) => m.client === 'a' && m.topic === 'sorting/gateway/status' && JSON.parse(m.payload).online === true), { timeoutMs: 60_000, what: 'the gateway online' });

    // A scan on each wall: slot 1 of each lights.
    const pending: Record<string, number> = {};
    for (const [name, f] of [['a', a], ['b', b]] as const) {
      const s = await f.sorter(1);
      const token = (await connect(api, f, s.auth)).body.token as string;
      const scanned = await scan(api, s.auth, token, 'SKU-A');
      expect(scanned.status).toBe(200);
      pending[name] = scanned.body.id as number;
    }
    const front = (f: Floor) => `sorting/${f.tenant.clientId}/walls/${f.wallId}/slots/${encodeURIComponent(serials.get(f.wallId)![0]!)}/front`;
    const button = (f: Floor) => `sorting/${f.tenant.clientId}/walls/${f.wallId}/slots/${encodeURIComponent(serials.get(f.wallId)![0]!)}/button`;
    const lit = (client: string, f: Floor) => seen.find((m) => m.client === client && m.topic === front(f) && m.payload && JSON.parse(m.payload).colors?.length);

    // Controller A asks for wall B's lights first, then its own: the broker sends the retained lights
    // in that order, so once its own have arrived, B's would have too.
    await ctrlA.subscribeAsync([`sorting/${b.tenant.clientId}/walls/${b.wallId}/slots/+/front`, `sorting/${a.tenant.clientId}/walls/${a.wallId}/slots/+/front`], { qos: 1 });
    await withGatewayLog(waitFor(() => lit('a', a), { timeoutMs: 60_000, what: "wall A's light at controller A" }));
    await ctrlB.subscribeAsync(`sorting/${b.tenant.clientId}/walls/${b.wallId}/slots/+/front`, { qos: 1 });
    await waitFor(() => lit('b', b), { timeoutMs: 60_000, what: "wall B's light at controller B" });
    expect(seen.filter((m) => m.client === 'a' && m.topic.startsWith(`sorting/${b.tenant.clientId}/`))).toEqual([]);

    // Controller A presses wall B's button (denied by the broker), then its own (confirms).
    await ctrlA.publishAsync(button(b), JSON.stringify({ button: 'confirm', id: 'a-on-b' }), { qos: 1 }).catch(() => undefined);
    await ctrlA.publishAsync(button(a), JSON.stringify({ button: 'confirm', id: 'a-on-a' }), { qos: 1 });
    await withGatewayLog(waitFor(async () => (await item(a, pending.a!)).status === 'Confirmed', { timeoutMs: 60_000, what: "controller A's press on its own wall" }));
    // The press on B went first on the same connection: had the broker passed it, it would have been applied first.
    expect((await item(b, pending.b!)).status).toBe('PendingConfirmation');

    // Controller B's own press works.
    await ctrlB.publishAsync(button(b), JSON.stringify({ button: 'confirm', id: 'b-on-b' }), { qos: 1 });
    await withGatewayLog(waitFor(async () => (await item(b, pending.b!)).status === 'Confirmed', { timeoutMs: 60_000, what: "controller B's press on its own wall" }));

    expect(gateway.output).not.toContain(SERVICE_PASSWORD);
  });

  it('says the gateway is gone by its retained last will when its process dies', async () => {
    const watcher = await mqttConnect(broker.url, { username: 'ctrl-b', password: 'ctrl-b-pass', clientId: 'ctrl-b-watch' });
    clients.push(watcher);
    let status: { online?: boolean } | null = null;
    watcher.on('message', (topic, payload) => {
      if (topic === 'sorting/gateway/status') status = JSON.parse(payload.toString()) as { online?: boolean };
    });
    await watcher.subscribeAsync('sorting/gateway/status', { qos: 1 });
    await waitFor(() => status?.online === true, { timeoutMs: 30_000, what: 'the gateway online' });

    // Killed outright: no goodbye of its own; the broker publishes its will.
    await stopWorkerProcess(gateway!, 'SIGKILL');
    expect(gateway!.output).not.toContain(SERVICE_PASSWORD);
    gateway = null;
    await waitFor(() => status?.online === false, { timeoutMs: 60_000, what: 'the gateway offline by its last will' });

    // Retained: a controller that connects now reads that the service is gone.
    const late = await mqttConnect(broker.url, { username: 'ctrl-a', password: 'ctrl-a-pass', clientId: 'ctrl-a-late' });
    clients.push(late);
    let lateStatus: { online?: boolean } | null = null;
    late.on('message', (topic, payload, packet) => {
      if (topic === 'sorting/gateway/status' && packet.retain) lateStatus = JSON.parse(payload.toString()) as { online?: boolean };
    });
    await late.subscribeAsync('sorting/gateway/status', { qos: 1 });
    await waitFor(() => lateStatus !== null, { timeoutMs: 30_000, what: 'the retained gateway status' });
    expect(lateStatus).toEqual({ online: false });
  });
});
