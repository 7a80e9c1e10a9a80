import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { closedPort } from '../support/api-process';

/*
 * The embedded MQTT broker (services/supervisor/embedded/embedded-mqtt.ts) bounds what even a signed-in
 * client can store: beyond its retained-message limit a new retained topic is refused
 * (the client disconnected, nothing kept or written to the file), while a retained topic it already
 * holds can still change and be cleared. aedes is an ES module: the broker runs in a child under tsx,
 * with a limit of 3 so the test stays small.
 */

const ROOT = path.resolve(__dirname, '../..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sorting-embedded-mqtt-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('beyond its retained-message limit the embedded broker refuses a new retained topic and keeps the ones it has', async () => {
  const port = await closedPort();
  const script = `
    const mqtt = require('mqtt');
    const { readFileSync } = require('node:fs');
    const { startEmbeddedMqtt } = require('./services/supervisor/embedded/embedded-mqtt');
    const { createLogger } = require('./shared/logging/logger');
    const { waitFor } = require('./test/support/wait-for');
    (async () => {
      const retainedFile = ${JSON.stringify(path.join(dir, 'retained.json'))};
      const credentials = { service: 'a'.repeat(32), controllers: 'b'.repeat(32) };
      const broker = await startEmbeddedMqtt({ host: '127.0.0.1', port: ${port}, topicPrefix: 'sorting', retainedFile, credentials, log: createLogger('silent', 'test'), maxRetained: 3 });
      const url = 'mqtt://sorting-service:' + credentials.service + '@127.0.0.1:${port}';
      const client = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
      for (const n of [1, 2, 3]) await client.publishAsync('sorting/1/controllers/c' + n + '/status', '{"online":true}', { qos: 1, retain: true });
      // A topic it holds changes and is cleared: no new entry.
      await client.publishAsync('sorting/1/controllers/c1/status', '{"online":false}', { qos: 1, retain: true });
      await client.publishAsync('sorting/1/controllers/c2/status', '', { qos: 1, retain: true });
      await client.publishAsync('sorting/1/controllers/c4/status', '{"online":true}', { qos: 1, retain: true });
      await client.endAsync();
      // Full again: a fifth topic is refused.
      const intruder = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
      let closed = false;
      intruder.once('close', () => (closed = true));
      intruder.publish('sorting/1/controllers/c5/status', '{"online":true}', { qos: 1, retain: true }, () => undefined);
      await waitFor(() => closed, { timeoutMs: 10000, what: 'the broker to disconnect the client' });
      intruder.end(true);
      // A plain (not retained) publication is still taken.
      const plain = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
      await plain.publishAsync('sorting/1/controllers/c5/heartbeat', '{}', { qos: 1 });
      const plainOpen = plain.connected;
      await plain.endAsync();
      await broker.stop();
      console.log(JSON.stringify({ plainOpen, saved: JSON.parse(readFileSync(retainedFile, 'utf8')) }));
    })().catch((err) => { console.error(err); process.exit(1); });`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const result = JSON.parse(stdout.trim().split('\n').pop()!) as { plainOpen: boolean; saved: Record<string, { payload: string }> };
  expect(result.plainOpen).toBe(true);
  expect(Object.fromEntries(Object.entries(result.saved).map(([t, m]) => [t, Buffer.from(m.payload, 'base64').toString()]))).toEqual({
    'sorting/1/controllers/c1/status': '{"online":false}',
    'sorting/1/controllers/c3/status': '{"online":true}',
    'sorting/1/controllers/c4/status': '{"online":true}',
  });
});
