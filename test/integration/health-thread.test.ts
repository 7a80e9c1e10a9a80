import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import type { AddressInfo } from 'node:net';
import { startHealthListener, type HealthListener } from '../../services/api/http/health-listener';
import { READINESS, Readiness } from '../../services/api/http/readiness';
import { createLogger } from '../../shared/logging/logger';
import { waitFor } from '../support/wait-for';

/*
 * The health listener on a thread of its own (HEALTH_PORT): it answers while the API's main thread is
 * busy, and says when that thread has stopped running. The main thread is made busy the way an
 * overload or a hang makes it: a synchronous loop; the probes come from another process meanwhile.
 */

const log = createLogger('silent', 'test');

interface ProbeAnswer {
  path: string;
  status: number;
  body: Record<string, unknown>;
  /** Date.now() when the answer came. */
  answeredAt: number;
}

/**
 * A process that sends probes at given times (Date.now() values), ready once Node has started in it
 * and a first request went through: the caller then sends it the times and blocks its own thread.
 */
async function prober(port: number): Promise<{ send(probes: { path: string; at: number }[]): void; answers: Promise<ProbeAnswer[]> }> {
  const script = `
    const get = (path) => fetch('http://127.0.0.1:${port}' + path).then(async (res) => ({ path, status: res.status, body: await res.json(), answeredAt: Date.now() }));
    get('/healthz').then(() => process.stdout.write('ready\\n'));
    let input = '';
    process.stdin.on('data', (chunk) => {
      input += chunk;
      if (!input.endsWith('\\n')) return;
      const probes = JSON.parse(input);
      Promise.all(probes.map(async (p) => {
        await new Promise((r) => setTimeout(r, Math.max(0, p.at - Date.now())));
        return get(p.path);
      })).then((out) => { process.stdout.write(JSON.stringify(out) + '\\n'); process.exit(0); }, (err) => { console.error(err); process.exit(1); });
    });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  let ended = false;
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      ended = true;
      resolve(code);
    });
  });
  await waitFor(
    () => {
      if (lines[0] !== 'ready' && ended) throw new Error('the probing process ended before it was ready');
      return lines[0] === 'ready';
    },
    { what: 'the probing process to be ready', intervalMs: 10 },
  );
  return {
    send: (probes) => child.stdin.write(JSON.stringify(probes) + '\n'),
    answers: exited.then((code) => {
      if (code !== 0) throw new Error(`the probing process exited ${code}`);
      return JSON.parse(lines[1]!) as ProbeAnswer[];
    }),
  };
}

/** Keeps this thread busy until `until` (Date.now()), as a long synchronous task would. */
function blockUntil(until: number): number {
  let spins = 0;
  while (Date.now() < until) spins++;
  return spins;
}

/**
 * Probes sent `afterMs` after this thread starts a busy spell of `busyMs`; the answers once it ended.
 * `before` runs once the probing process is ready, right before the spell, with no turn of the event
 * loop in between when it awaits only promises (no timer, no I/O).
 */
async function probedWhileBusy(
  port: number,
  afterMs: Record<string, number>,
  busyMs: number,
  before?: () => Promise<void>,
): Promise<{ answers: ProbeAnswer[]; busyUntil: number }> {
  const probe = await prober(port);
  await before?.();
  const start = Date.now();
  probe.send(Object.entries(afterMs).map(([path, ms]) => ({ path, at: start + ms })));
  const busyUntil = start + busyMs;
  blockUntil(busyUntil);
  return { answers: await probe.answers, busyUntil };
}

const get = (port: number, path: string) => fetch(`http://127.0.0.1:${port}${path}`).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }));

describe('the health listener on its own thread (HEALTH_PORT)', () => {
  let listener: HealthListener | undefined;
  afterEach(async () => {
    await listener?.close();
    listener = undefined;
  });

  it("answers /readyz and /healthz while the API's main thread is busy", async () => {
    listener = await startHealthListener({ port: 0, host: '127.0.0.1', readiness: async () => ({ postgres: true, redis: true }), log });
    expect(listener.thread).toBe(true);
    const port = listener.port;
    await waitFor(async () => (await get(port, '/readyz')).status === 200, { what: 'the first checks to reach the thread' });

    // This thread is busy from before the probes until well after them: any answer that came before the
    // end of the busy spell came from the listener's thread.
    const { answers, busyUntil } = await probedWhileBusy(port, { '/readyz': 200, '/healthz': 300 }, 1_500);

    expect(answers.map((a) => [a.path, a.status]).sort()).toEqual([
      ['/healthz', 200],
      ['/readyz', 200],
    ]);
    expect(answers.find((a) => a.path === '/readyz')!.body).toEqual({ status: 'ready', checks: { postgres: true, redis: true } });
    for (const a of answers) expect(a.answeredAt).toBeLessThan(busyUntil);
  });

  it('says not ready, then hung, while the main thread does not run, and ready again once it does', async () => {
    listener = await startHealthListener({
      port: 0,
      host: '127.0.0.1',
      readiness: async () => ({ postgres: true, redis: true }),
      log,
      timing: { heartbeatMs: 20, readyStallMs: 300, liveStallMs: 900 },
    });
    const port = listener.port;
    await waitFor(async () => (await get(port, '/readyz')).status === 200, { what: 'the first checks to reach the thread' });

    // The main thread stops running (its last heartbeat just before) for 2.5 s; the probes come 1 s into
    // the spell, silent past both bounds (300 ms for ready, 900 ms for alive).
    const { answers, busyUntil } = await probedWhileBusy(port, { '/readyz': 1_000, '/healthz': 1_050 }, 2_500);

    const ready = answers.find((a) => a.path === '/readyz')!;
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: 'service-unavailable', checks: { postgres: true, redis: true, eventLoop: false } });
    const live = answers.find((a) => a.path === '/healthz')!;
    expect(live.status).toBe(503);
    expect(String(live.body.detail)).toMatch(/event loop has not run for \d+ ms/);
    for (const a of answers) expect(a.answeredAt).toBeLessThan(busyUntil);

    // Running again, the main thread's next heartbeat makes the process ready and alive.
    await waitFor(async () => (await get(port, '/readyz')).status === 200, { what: 'ready again' });
    expect((await get(port, '/healthz')).status).toBe(200);
  });

  it("says ready as soon as a probe on PORT found the service ready, though the main thread is busy right after", async () => {
    // The API's own checks with its start gate: not ready until every command partition is held.
    let held = false;
    const readiness = new Readiness({ postgres: async () => undefined }, READINESS, { name: 'partitions', probe: async () => held, waitMs: 60_000, recheckMs: 0 });
    listener = await startHealthListener({
      port: 0,
      host: '127.0.0.1',
      readiness: () => readiness.check(),
      onReadiness: (l) => readiness.onChecks(l),
      log,
    });
    const port = listener.port;
    await waitFor(async () => 'partitions' in ((await get(port, '/readyz')).body.checks as object), { what: 'the first checks to reach the thread' });
    expect(await get(port, '/readyz')).toMatchObject({ status: 503, body: { checks: { postgres: true, partitions: false } } });

    // The partitions are held; a probe on PORT finds it (the check runs on the main thread), and the main
    // thread is busy right after (a flood of connections), before any heartbeat: the thread says ready.
    const { answers, busyUntil } = await probedWhileBusy(port, { '/readyz': 200 }, 1_000, async () => {
      held = true;
      expect(await readiness.check()).toEqual({ postgres: true });
    });
    expect(answers[0]).toMatchObject({ status: 200, body: { status: 'ready', checks: { postgres: true } } });
    expect(answers[0]!.answeredAt).toBeLessThan(busyUntil);
  });

  it('reports the checks it was last given: a dependency that does not answer is not ready', async () => {
    let redis = true;
    listener = await startHealthListener({ port: 0, host: '127.0.0.1', readiness: async () => ({ postgres: true, redis }), log, timing: { heartbeatMs: 20 } });
    const port = listener.port;
    await waitFor(async () => (await get(port, '/readyz')).status === 200, { what: 'ready' });
    redis = false;
    await waitFor(async () => (await get(port, '/readyz')).status === 503, { what: 'not ready' });
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ code: 'service-unavailable', checks: { postgres: true, redis: false } });
    // Alive all the while: a dependency down is not a reason to restart the process.
    expect((await get(port, '/healthz')).status).toBe(200);
  });

  it('is not ready, but alive, until the first checks have answered', async () => {
    // Checks that never answer: the main thread runs (its heartbeats come) but has nothing to post yet.
    listener = await startHealthListener({ port: 0, host: '127.0.0.1', readiness: () => new Promise<never>(() => undefined), log, timing: { heartbeatMs: 20 } });
    const ready = await get(listener.port, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: 'service-unavailable', checks: { started: false } });
    expect(String(ready.body.detail)).toMatch(/still starting/);
    expect((await get(listener.port, '/healthz')).status).toBe(200);
  });

  it('fails to start, saying why, when its port is taken', async () => {
    const taken = createServer();
    const port = await new Promise<number>((r) => taken.listen(0, '127.0.0.1', () => r((taken.address() as AddressInfo).port)));
    try {
      await expect(startHealthListener({ port, host: '127.0.0.1', readiness: async () => ({}), log })).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
