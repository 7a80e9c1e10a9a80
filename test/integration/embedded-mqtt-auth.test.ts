import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { closedPort } from '../support/api-process';

/*
 * The embedded MQTT broker takes no anonymous client (docs/lights.md, "Broker credentials"): only the
 * users of services/supervisor/embedded/mqtt-credentials.ts with their passwords (made at the first
 * start, kept mode 0600 in the data folder), each on its ACL's topics. Another local process cannot
 * subscribe to `#` nor press a slot's button; the controllers' user cannot read the presses, light a
 * slot or subscribe to `#`; the gateway's user reads the controllers' presses. aedes is an ES module:
 * the broker runs in a child under tsx.
 */

const ROOT = path.resolve(__dirname, '../..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sorting-embedded-mqtt-auth-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the embedded broker refuses anonymous clients and wrong passwords, and holds each user to its topics', async () => {
  const port = await closedPort();
  const credentialsFile = path.join(dir, 'mqtt', 'credentials.json');
  const script = `
    const mqtt = require('mqtt');
    const { startEmbeddedMqtt } = require('./services/supervisor/embedded/embedded-mqtt');
    const { mqttCredentials, mqttUrlAs } = require('./services/supervisor/embedded/mqtt-credentials');
    const { createLogger } = require('./shared/logging/logger');
    const { waitFor } = require('./test/support/wait-for');
    const BUTTON = 'sorting/1/walls/7/slots/0x1A2B3C4D/button';
    const FRONT = 'sorting/1/walls/7/slots/0x1A2B3C4D/front';
    (async () => {
      const credentials = mqttCredentials(${JSON.stringify(credentialsFile)});
      const again = mqttCredentials(${JSON.stringify(credentialsFile)});
      const broker = await startEmbeddedMqtt({ host: '127.0.0.1', port: ${port}, topicPrefix: 'sorting', retainedFile: ${JSON.stringify(path.join(dir, 'mqtt', 'retained.json'))}, credentials, log: createLogger('silent', 'test') });
      const base = 'mqtt://127.0.0.1:${port}';
      const refusal = (url) => mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000 }).then((c) => { c.end(true); return 'connected'; }, (err) => err.message);
      const anonymous = await refusal(base);
      const wrongPassword = await refusal('mqtt://sorting-service:' + 'f'.repeat(48) + '@127.0.0.1:${port}');
      const unknownUser = await refusal('mqtt://intruder:' + credentials.controllers + '@127.0.0.1:${port}');
      // The gateway's user: every topic under the prefix; it hears the presses.
      const gateway = await mqtt.connectAsync(mqttUrlAs(base, 'service', credentials), { reconnectPeriod: 0 });
      const heard = [];
      gateway.on('message', (topic, payload) => heard.push(topic + ' ' + payload));
      const gatewayGrants = (await gateway.subscribeAsync('sorting/+/walls/+/slots/+/button', { qos: 1 })).map((g) => g.qos);
      // The controllers' user: no '#', no other controller's presses; its lights, yes.
      const controller = await mqtt.connectAsync(mqttUrlAs(base, 'controllers', credentials), { reconnectPeriod: 0 });
      const controllerGrants = {};
      for (const filter of ['#', 'sorting/#', 'sorting/+/walls/+/slots/+/button', 'sorting/1/walls/7/slots/+/front', 'sorting/gateway/status']) {
        // A refusal (SUBACK 128) rejects, carrying the SUBACK.
        controllerGrants[filter] = await controller.subscribeAsync(filter, { qos: 1 }).then((g) => g[0].qos, (err) => err.packet?.granted?.[0] ?? err.message);
      }
      await controller.publishAsync(BUTTON, JSON.stringify({ button: 'confirm', id: 'press-1' }), { qos: 1 });
      await waitFor(() => heard.length === 1, { timeoutMs: 10000, what: 'the gateway to hear the press' });
      // A light is the gateway's to write: the controllers' user is disconnected, nothing delivered.
      let closed = false;
      controller.once('close', () => (closed = true));
      controller.publish(FRONT, '{"on":true}', { qos: 1, retain: true }, () => undefined);
      await waitFor(() => closed, { timeoutMs: 10000, what: 'the broker to disconnect the controller lighting a slot' });
      controller.end(true);
      await gateway.endAsync();
      await broker.stop();
      console.log(JSON.stringify({ same: again.service === credentials.service, anonymous, wrongPassword, unknownUser, gatewayGrants, controllerGrants, heard }));
    })().catch((err) => { console.error(err); process.exit(1); });`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
  expect(r.same).toBe(true);
  for (const refused of [r.anonymous, r.wrongPassword, r.unknownUser]) expect(refused).toMatch(/Bad username or password|Not authorized/i);
  expect(r.gatewayGrants).toEqual([1]);
  expect(r.controllerGrants).toEqual({
    '#': 128,
    'sorting/#': 128,
    'sorting/+/walls/+/slots/+/button': 128,
    'sorting/1/walls/7/slots/+/front': 1,
    'sorting/gateway/status': 1,
  });
  expect(r.heard).toEqual(['sorting/1/walls/7/slots/0x1A2B3C4D/button {"button":"confirm","id":"press-1"}']);
});
