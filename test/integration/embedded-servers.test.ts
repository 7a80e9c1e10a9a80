import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import { mqttCredentialsFile, mqttUrlAs, readMqttCredentials } from '../../services/supervisor/embedded/mqtt-credentials';
import { Client as PgClient } from 'pg';
import { closedPort } from '../support/api-process';
import { waitFor } from '../support/wait-for';
import { alive, followLogRecords } from '../support/child-process';
import { portAnswers } from '../../services/supervisor/embedded/port-probe';

/*
 * `npm start` on a machine with Node alone (services/supervisor/embedded): with DATABASE_URL and
 * MQTT_URL unset and nothing on the default ports, the supervisor runs an embedded PostgreSQL and an
 * MQTT broker, stops them with the service, and a second start finds their data. This machine's own
 * PostgreSQL and Mosquitto hold 5432 and 1883, so the ports the supervisor looks at
 * (EMBEDDED_POSTGRES_PORT, EMBEDDED_MQTT_PORT) are pointed at free ones; the data goes to a temporary
 * folder. The supervisor runs from the sources (under tsx), as its children then do.
 */

const ROOT = path.resolve(__dirname, '../..');
// Two starts of the whole service (the first makes a cluster with initdb), on a busy 2-core machine.
jest.setTimeout(300_000);

interface Run {
  child: ChildProcess;
  output: string;
  lines: Record<string, unknown>[];
  exit: Promise<number | null>;
}

const runs: Run[] = [];
const SECRET = `embedded-test-secret-${randomUUID()}`;
let dataRoot: string;
let pgPort: number;
let mqttPort: number;

beforeAll(async () => {
  // /tmp: as root the embedded PostgreSQL runs as an unprivileged user, who must reach the folder.
  dataRoot = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'sorting-embedded-')));
  chmodSync(dataRoot, 0o755); // mkdtemp makes it private (0700)
  pgPort = await closedPort();
  mqttPort = await closedPort();
});

afterAll(() => {
  for (const run of runs) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  // A server left by a failed run (its pid is in the log) must not outlive the test either.
  for (const run of runs) {
    const pg = run.lines.find((l) => l.embedded === 'postgres');
    if (typeof pg?.pid === 'number') {
      try {
        process.kill(pg.pid, 'SIGQUIT');
      } catch {
        // gone
      }
    }
  }
  rmSync(dataRoot, { recursive: true, force: true });
});

function start(): Run {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    EMBEDDED_POSTGRES_PORT: String(pgPort),
    EMBEDDED_MQTT_PORT: String(mqttPort),
    EMBEDDED_DATA_DIR: dataRoot,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SEED_DEMO: 'true',
    SORTING_WORKERS: '1',
    DATABASE_POOL_MAX: '4',
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-embedded-${randomUUID().slice(0, 8)}`,
    // A setting of the service's that must not reach the database server's environment.
    JWT_SECRET: SECRET,
  };
  delete env.DATABASE_URL;
  delete env.MQTT_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = { child, output: '', lines: [], exit: new Promise((r) => child.once('exit', (code) => r(code))) };
  followLogRecords<Record<string, unknown>>(child, (l) => run.lines.push(l), (chunk) => {
    run.output = (run.output + chunk.toString()).slice(-300_000);
  });
  runs.push(run);
  return run;
}

const why = (run: Run) => `\n--- output ---\n${run.output.slice(-5000)}`;

async function started(run: Run): Promise<{ apiPort: number; pgPid: number }> {
  const outcome = await waitFor(
    () => (run.child.exitCode !== null ? 'exited' : run.lines.some((l) => l.msg === 'every role started') && 'started'),
    { timeoutMs: 240_000, intervalMs: 100, what: 'the embedded servers, the migration and every role to start' },
  ).catch((e) => {
    throw new Error(`${e}${why(run)}`);
  });
  if (outcome === 'exited') throw new Error(`the supervisor exited (${run.child.exitCode})${why(run)}`);
  const api = await waitFor(() => run.lines.find((l) => l.role === 'api' && typeof l.port === 'number'), { timeoutMs: 90_000, what: 'the API to listen' });
  const pg = run.lines.find((l) => l.embedded === 'postgres');
  if (typeof pg?.pid !== 'number') throw new Error(`no embedded PostgreSQL was started${why(run)}`);
  return { apiPort: api.port as number, pgPid: pg.pid };
}

async function signIn(apiPort: number): Promise<number> {
  return waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${apiPort}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin@demo.local', password: 'demo-admin-1' }),
      });
      return res.status === 200 ? res.status : undefined;
    },
    { timeoutMs: 60_000, what: 'a sign-in of the seeded demo Admin' },
  );
}

const pgPassword = () => readFileSync(path.join(dataRoot, 'postgres.password'), 'utf8').trim();

async function onEmbeddedPg<T>(fn: (pg: PgClient) => Promise<T>, password = pgPassword()): Promise<T> {
  const pg = new PgClient({ host: '127.0.0.1', port: pgPort, user: 'postgres', password, database: 'sorting' });
  await pg.connect();
  try {
    return await fn(pg);
  } finally {
    await pg.end();
  }
}

/** The messages on `filter` a new subscriber gets: the retained ones, then what is published meanwhile. */
/** The embedded broker's address signed in as one of its users (passwords in the data folder). */
const brokerAs = (role: 'service' | 'controllers') => mqttUrlAs(`mqtt://127.0.0.1:${mqttPort}`, role, readMqttCredentials(mqttCredentialsFile(dataRoot))!);

async function messages(filter: string, expected: (topics: Map<string, string>) => boolean): Promise<Map<string, string>> {
  const client = await mqtt.connectAsync(brokerAs('service'), { reconnectPeriod: 0, connectTimeout: 5000 });
  const topics = new Map<string, string>();
  client.on('message', (topic, payload) => topics.set(topic, payload.toString()));
  try {
    await client.subscribeAsync(filter, { qos: 1 });
    // The pipeline process (the light gateway) may take a minute to start on a loaded machine.
    return await waitFor(() => (expected(topics) ? topics : undefined), { timeoutMs: 90_000, what: `retained messages on ${filter}` });
  } finally {
    await client.endAsync();
  }
}

async function stop(run: Run, pgPid: number): Promise<void> {
  run.child.kill('SIGTERM');
  expect(await run.exit).toBe(0);
  expect(run.lines.some((l) => l.msg === 'every process stopped')).toBe(true);
  // The embedded servers stopped with the service.
  expect(alive(pgPid)).toBe(false);
  expect(await portAnswers('127.0.0.1', pgPort)).toBe(false);
  expect(await portAnswers('127.0.0.1', mqttPort)).toBe(false);
}

const CONTROLLER_TOPIC = 'sorting/1/controllers/embedded-test/status';

test('with no server named and none on the default ports, npm start runs an embedded PostgreSQL and MQTT broker, says so, stops them with the service, and finds their data at the next start', async () => {
  const first = start();
  const one = await started(first);
  // The banner names what it started and where the data is.
  expect(first.output).toContain('Embedded servers');
  expect(first.output).toContain(`postgres://postgres:***@127.0.0.1:${pgPort}/sorting`);
  // The password: random, in a file of the data folder only its owner reads, never in the output.
  const password = pgPassword();
  expect(password).toMatch(/^[0-9a-f]{48}$/);
  expect(statSync(path.join(dataRoot, 'postgres.password')).mode & 0o777).toBe(0o600);
  expect(first.output).not.toContain(password);
  await expect(onEmbeddedPg(async () => undefined, 'not-the-password')).rejects.toThrow(/password authentication failed/);
  expect(first.output).toContain(`data: ${path.join(dataRoot, 'postgres')}`);
  expect(first.output).toContain(`mqtt://127.0.0.1:${mqttPort}`);
  expect(first.output).toContain(`data: ${path.join(dataRoot, 'mqtt', 'retained.json')}`);
  expect(first.output).toContain('Redis is not embedded');
  // The migration ran against it and seeded the demo client: the API signs its Admin in.
  expect(first.lines.some((l) => l.msg === 'demo client seeded')).toBe(true);
  await signIn(one.apiPort);
  // It is the embedded server, its cluster in the folder named.
  const dataDir = await onEmbeddedPg(async (pg) => {
    await pg.query('create table embedded_restart_marker (note text)');
    await pg.query(`insert into embedded_restart_marker values ('written before the restart')`);
    return (await pg.query<{ data_directory: string }>('show data_directory')).rows[0]!.data_directory;
  });
  expect(dataDir).toBe(path.join(dataRoot, 'postgres'));
  // The server runs with a minimal environment: the service's settings are not readable from SQL (a
  // program the server runs inherits its environment; /proc/self/environ is overwritten by its title).
  const environ = await onEmbeddedPg(async (pg) => {
    await pg.query('create temp table server_env (line text)');
    await pg.query(`copy server_env from program 'env'`);
    return (await pg.query<{ line: string }>('select line from server_env')).rows.map((r) => r.line).join('\n');
  });
  expect(environ).toContain('LANG=C');
  expect(environ).not.toContain(SECRET);
  expect(environ).not.toContain('JWT_SECRET');
  if (process.getuid?.() === 0) {
    // As root: the server runs as the unprivileged system user (PostgreSQL refuses root).
    const owner = execFileSync('ps', ['-o', 'user=', '-p', String(one.pgPid)], { encoding: 'utf8' }).trim();
    expect(owner).toBe('postgres');
  }
  // The broker's users' passwords: random, in a file only its owner reads, never in the output; no
  // anonymous client.
  const mqttPasswords = readMqttCredentials(mqttCredentialsFile(dataRoot))!;
  expect(statSync(mqttCredentialsFile(dataRoot)).mode & 0o777).toBe(0o600);
  for (const p of Object.values(mqttPasswords)) expect(first.output).not.toContain(p);
  await expect(mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0, connectTimeout: 5000 })).rejects.toThrow(/Bad username or password/i);
  // The light gateway is connected to the embedded broker: its retained status says online.
  await messages('sorting/gateway/status', (t) => t.get('sorting/gateway/status') === '{"online":true}');
  // A controller on the embedded broker confirms by button: a sorter scans MUG12 (slot 1, crc
  // 583032E0 on the demo wall), the slot's light comes on, its confirm button confirms the item.
  const api = async <T>(method: string, url: string, auth: string | null, body?: unknown): Promise<T> => {
    const res = await fetch(`http://127.0.0.1:${one.apiPort}${url}`, {
      method,
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await res.json()) as T;
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const sorter = (await api<{ access_token: string }>('POST', '/token', null, { username: 'sorter1@demo.local', password: 'demo-sorter-1' })).access_token;
  const [wall] = await api<{ id: number }[]>('GET', '/api/v1/walls', sorter);
  const session = await api<{ token: string }>('POST', `/api/v1/walls/${wall!.id}/sessions`, sorter);
  const item = await api<{ id: number }>('POST', '/api/v1/sort-box-items', sorter, { sessionToken: session.token, barcode: 'MUG12' });
  const lit = new RegExp(`^sorting/(\\d+)/walls/${wall!.id}/slots/([^/]+)/front$`);
  const lights = await messages('sorting/+/walls/+/slots/+/front', (t) =>
    [...t].some(([topic, payload]) => lit.test(topic) && (JSON.parse(payload) as { on: boolean; crc: string }).on && payload.includes('583032E0')),
  );
  const [slotTopic] = [...lights].find(([topic, payload]) => lit.test(topic) && payload.includes('583032E0') && (JSON.parse(payload) as { on: boolean }).on)!;
  const button = slotTopic.replace(/\/front$/, '/button');
  const device = await mqtt.connectAsync(brokerAs('controllers'), { reconnectPeriod: 0 });
  await device.publishAsync(button, JSON.stringify({ button: 'confirm', id: randomUUID() }), { qos: 1 });
  await device.endAsync();
  await waitFor(async () => (await api<{ status: string }>('GET', `/api/v1/sort-box-items/${item.id}`, sorter)).status === 'Confirmed', {
    timeoutMs: 30_000,
    what: 'the confirm button to confirm the item through the embedded broker',
  });
  // A controller's retained status, to be found after the restart.
  const controller = await mqtt.connectAsync(brokerAs('controllers'), { reconnectPeriod: 0 });
  await controller.publishAsync(CONTROLLER_TOPIC, '{"online":true,"slots":[]}', { qos: 1, retain: true });
  await controller.endAsync();
  // The broker takes no publication outside the service's topics, nor one above its size limit: the
  // client is disconnected and the message goes nowhere (nor into the retained messages).
  for (const [topic, payload] of [
    ['elsewhere/filler', 'x'],
    ['sorting/1/controllers/embedded-test/heartbeat', 'x'.repeat(17 * 1024)],
  ] as const) {
    const intruder = await mqtt.connectAsync(brokerAs('service'), { reconnectPeriod: 0 });
    let closed = false;
    intruder.once('close', () => (closed = true));
    intruder.publish(topic, payload, { qos: 1, retain: true }, () => undefined);
    await waitFor(() => closed, { timeoutMs: 10_000, what: `the broker to disconnect a client publishing on ${topic} (${payload.length} bytes)` });
    intruder.end(true);
  }
  // It listens on 127.0.0.1 only (EMBEDDED_MQTT_HOST unset): not on this machine's other addresses.
  const lan = Object.values(os.networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
  if (lan) expect(await portAnswers(lan.address, mqttPort)).toBe(false);
  await stop(first, one.pgPid);
  const saved = JSON.parse(readFileSync(path.join(dataRoot, 'mqtt', 'retained.json'), 'utf8')) as Record<string, unknown>;
  expect(Object.keys(saved).filter((t) => !t.startsWith('sorting/'))).toEqual([]);

  // A cluster made with trust auth (an earlier version's .data folder): the next start gives the user
  // postgres a new password and pg_hba.conf asks for it.
  const hbaFile = path.join(dataRoot, 'postgres', 'pg_hba.conf');
  writeFileSync(hbaFile, readFileSync(hbaFile, 'utf8').replace(/scram-sha-256\s*$/gm, 'trust'));
  rmSync(path.join(dataRoot, 'postgres.password'));

  const second = start();
  const two = await started(second);
  expect(two.pgPid).not.toBe(one.pgPid);
  expect(pgPassword()).not.toBe(password);
  expect(second.output).not.toContain(pgPassword());
  expect(second.lines.some((l) => typeof l.msg === 'string' && l.msg.includes('the user postgres now has one'))).toBe(true);
  expect(readFileSync(hbaFile, 'utf8')).not.toMatch(/^[^#]*\strust\s*$/m);
  await waitFor(() => onEmbeddedPg(async () => false, 'not-the-password').catch((e: Error) => /password authentication failed/.test(e.message)), {
    timeoutMs: 10_000,
    what: 'the server to ask for the password once it has reloaded pg_hba.conf',
  });
  // The same cluster: nothing seeded again, the row written before is there, the Admin signs in.
  expect(second.lines.some((l) => l.msg === 'demo client seeded')).toBe(false);
  await signIn(two.apiPort);
  const notes = await onEmbeddedPg(async (pg) => (await pg.query<{ note: string }>('select note from embedded_restart_marker')).rows.map((r) => r.note));
  expect(notes).toEqual(['written before the restart']);
  // The broker published its retained messages again: the controller's status, the gateway's and every light (24 slots, two sides).
  expect(second.lines.find((l) => l.embedded === 'mqtt')?.restored).toBeGreaterThan(24);
  const topics = await messages('sorting/#', (t) => t.has(CONTROLLER_TOPIC) && [...t.keys()].some((k) => k.endsWith('/front')));
  expect(topics.get(CONTROLLER_TOPIC)).toBe('{"online":true,"slots":[]}');
  await stop(second, two.pgPid);
});

test('with a server answering on each default port, npm start uses them and loads none of the embedded servers', () => {
  // This machine's PostgreSQL and Mosquitto answer on 5432 and 1883, the defaults.
  const script = `
    const { startEmbeddedServers } = require('./services/supervisor/embedded/embedded-servers');
    const { loadConfig } = require('./shared/config/config');
    const { createLogger } = require('./shared/logging/logger');
    const env = { HOST: '127.0.0.1' };
    startEmbeddedServers(env, loadConfig(env), createLogger('silent', 'test')).then((s) => {
      const loaded = Object.keys(require.cache).filter((f) => /embedded-postgres|embedded-mqtt|[\\\\/]aedes[\\\\/]|[\\\\/]pg[\\\\/]/.test(f));
      console.log(JSON.stringify({ banner: s.banner, DATABASE_URL: env.DATABASE_URL, MQTT_URL: env.MQTT_URL, loaded }));
    });`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({
    banner: null,
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/sorting',
    MQTT_URL: 'mqtt://127.0.0.1:1883',
    loaded: [],
  });
});
