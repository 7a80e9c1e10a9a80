import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseSimArgs } from '../../services/simulator/simulate.cli';
import { loadConfig } from '../../shared/config/config';
import { createRuntime } from '../../shared/runtime/runtime';
import { startWorkers } from '../../workers/registry';
import { startOwnMosquitto } from '../support/own-mosquitto';
import { newTenant, startTestApi, type Tenant, type TestApi } from '../support/test-api';

const ROOT = path.join(__dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

describe('npm run simulate', () => {
  let api: TestApi;
  let server: Server;
  let url: string;
  let tenant: Tenant;
  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting'] });
    server = createServer(api.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tenant = await newTenant(api, 'Sim');
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await api.close();
  });

  it('reads its arguments, with --seconds instead of --minutes, and refuses bad ones', () => {
    expect(parseSimArgs(['--walls', '3', '--sorters', '6', '--minutes', '2'], {})).toMatchObject({ walls: 3, sortersPerWall: 6, durationMs: 120_000, url: 'http://localhost:3000', pace: 1 });
    expect(parseSimArgs(['--seconds', '5', '--pace', '0.1', '--url', 'http://127.0.0.1:1'])).toMatchObject({ durationMs: 5000, pace: 0.1, url: 'http://127.0.0.1:1' });
    expect(() => parseSimArgs(['--sorters', '7'])).toThrow(/--sorters must be an integer from 1 to 6/);
    expect(() => parseSimArgs(['--walls', 'x'])).toThrow(/--walls/);
    expect(() => parseSimArgs(['--bogus'])).toThrow();
    expect(parseSimArgs(['--no-lights']).mqttUrl).toBeNull();
    expect(parseSimArgs(['--mqtt', 'mqtt://10.0.0.9:1883']).mqttUrl).toBe('mqtt://10.0.0.9:1883');
    expect(parseSimArgs([]).printer).toEqual({ host: '127.0.0.1', port: 0, autoPrint: false });
    expect(parseSimArgs(['--printer-host', '10.0.0.5', '--printer-port', '9100', '--auto-print']).printer).toEqual({ host: '10.0.0.5', port: 9100, autoPrint: true });
    expect(parseSimArgs(['--no-printer']).printer).toBeNull();
    expect(() => parseSimArgs(['--printer-port', '70000'])).toThrow(/--printer-port/);
  });

  it('finds the service where npm start put it: SERVICE_URL, else localhost on PORT; --url wins', () => {
    expect(parseSimArgs([], { PORT: '4123' }).url).toBe('http://localhost:4123');
    expect(parseSimArgs([], { PORT: '4123', SERVICE_URL: 'https://wall.example.com/' }).url).toBe('https://wall.example.com');
    expect(parseSimArgs(['--url', 'http://127.0.0.1:9'], { PORT: '4123', SERVICE_URL: 'https://wall.example.com' }).url).toBe('http://127.0.0.1:9');
    expect(() => parseSimArgs([], { SERVICE_URL: 'localhost:3000' })).toThrow(/SERVICE_URL: must be an http/);
    expect(() => parseSimArgs([], { PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('answers --help (and -h) with its usage on stdout and exit code 0, an unknown option with the usage and 2', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(TSX, ['services/simulator/simulate.cli.ts', ...args], { cwd: ROOT, timeout: 30_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
        );
      });
    for (const flag of ['--help', '-h']) {
      const help = await run([flag]);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(/^usage: npm run simulate -- /);
      expect(help.stdout).toContain('SERVICE_URL');
    }
    const bad = await run(['--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option '--bogus'[\s\S]*usage: npm run simulate/);
  }, 60_000);

  it('sorts against a running service for the time given and prints a summary with completed orders', async () => {
    // Ten times faster than people, so a few seconds complete orders; a second run reuses the walls.
    // The address from SERVICE_URL, as a deployment would set it.
    const args = ['services/simulator/simulate.cli.ts', '--walls', '2', '--sorters', '2', '--seconds', '6', '--pace', '0.1', '--user', tenant.adminEmail, '--password', tenant.password, '--no-lights', '--no-printer'];
    const run = () =>
      new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
        execFile(TSX, args, { cwd: ROOT, timeout: 60_000, env: { ...process.env, LOG_LEVEL: 'silent', SERVICE_URL: url } }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
        );
      });
    const started = Date.now();
    const { stdout } = await run();
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(stdout).toMatch(/^Simulated [\d.]+ s on 2 wall\(s\) with 4 sorter\(s\)/);
    const figure = (label: string) => Number(stdout.match(new RegExp(`${label} (\\d+)`))?.[1]);
    expect(figure('scans')).toBeGreaterThan(0);
    expect(figure('confirms')).toBeGreaterThan(0);
    expect(figure('completed orders')).toBeGreaterThan(0);
    expect(stdout).toMatch(/scan latency p50 \d+ ms/);
  }, 90_000);

  it('drives virtual lights: a controller per wall follows its slots over MQTT and confirms units with their buttons', async () => {
    const broker = await startOwnMosquitto();
    const gateway = await createRuntime('test-sim-lights', { config: loadConfig({ ...process.env, MQTT_URL: broker.url }) });
    try {
      await startWorkers(gateway, ['outbox', 'lights']);
      const own = await newTenant(api, 'SimLights');
      const args = ['services/simulator/simulate.cli.ts', '--walls', '1', '--sorters', '3', '--seconds', '8', '--pace', '0.1', '--url', url, '--user', own.adminEmail, '--password', own.password, '--mqtt', broker.url, '--no-printer'];
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(TSX, args, { cwd: ROOT, timeout: 60_000, env: { ...process.env, LOG_LEVEL: 'silent' } }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out)));
      });
      expect(Number(stdout.match(/confirmed with a slot button (\d+)/)?.[1])).toBeGreaterThan(0);
      const [row] = await api.runtime.orm.em.fork().execute<{ n: string }[]>(`select count(*) as n from light_controller where client_id = ?`, [own.clientId]);
      expect(Number(row!.n)).toBe(1);
    } finally {
      await gateway.close();
      await broker.close();
    }
  }, 90_000);

  it('attaches a simulated printer: the shipper prints each complete slot, and the labels come out on it', async () => {
    // The labels worker sends the print jobs (a runtime of its own on the same database).
    const labels = await createRuntime('test-sim-printer', { config: loadConfig({ ...process.env }) });
    try {
      await startWorkers(labels, ['outbox', 'labels']);
      const own = await newTenant(api, 'SimPrinter');
      const args = ['services/simulator/simulate.cli.ts', '--walls', '1', '--sorters', '3', '--seconds', '8', '--pace', '0.1', '--url', url, '--user', own.adminEmail, '--password', own.password, '--no-lights'];
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(TSX, args, { cwd: ROOT, timeout: 60_000, env: { ...process.env, LOG_LEVEL: 'silent' } }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out)));
      });
      const printed = /labels printed (\d+) of (\d+) print job\(s\), on the simulated printer at 127\.0\.0\.1:(\d+)/.exec(stdout);
      expect(printed).not.toBeNull();
      const [labelsPrinted, jobs] = [Number(printed![1]), Number(printed![2])];
      expect(jobs).toBeGreaterThan(0);
      expect(labelsPrinted).toBe(jobs);
      expect(Number(stdout.match(/completed orders (\d+)/)?.[1])).toBeGreaterThanOrEqual(jobs);
      const [row] = await api.runtime.orm.em.fork().execute<{ sent: string }[]>(
        `select count(*) filter (where j.status = 'Sent') as sent from print_job j where j.client_id = ?`,
        [own.clientId],
      );
      expect(Number(row!.sent)).toBe(jobs);
    } finally {
      await labels.close();
    }
  }, 90_000);
});
